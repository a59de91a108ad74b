module membomb

go 1.24
