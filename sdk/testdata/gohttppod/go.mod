module gohttppod

go 1.24
