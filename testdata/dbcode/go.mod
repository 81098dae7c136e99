module dbcode

go 1.25.0
