module api

go 1.24
