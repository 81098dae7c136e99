module example.com/fkschema

go 1.26
