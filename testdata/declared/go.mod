module example.com/declared

go 1.25
