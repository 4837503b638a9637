module github.com/hindsight-dev/hindsight

go 1.26.8
