module fkcovered

go 1.25.0
