module gopod

go 1.24
