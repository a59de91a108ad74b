module transportpod

go 1.24
