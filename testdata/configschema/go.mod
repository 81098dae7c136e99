module configschema

go 1.25.0
