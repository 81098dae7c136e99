module example.com/gate

go 1.25
