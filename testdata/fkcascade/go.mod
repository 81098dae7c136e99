module fkcascade

go 1.25.0
