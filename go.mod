module countsim

go 1.26

require (
	github.com/cespare/xxhash/v2 v2.3.0
	go.yaml.in/yaml/v3 v3.0.6
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/plot v0.17.0
)
