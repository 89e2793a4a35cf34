module idmint.io/client-go

go 1.19
