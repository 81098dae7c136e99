module example.com/dbmod

go 1.25.0
