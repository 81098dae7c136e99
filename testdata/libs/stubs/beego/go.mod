module github.com/beego/beego/v2

go 1.25.0
