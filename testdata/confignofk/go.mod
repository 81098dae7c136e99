module confignofk

go 1.25.0
