module github.com/astaxie/beego

go 1.25.0
