// spin.go - writes a Go CPU profile (runtime/pprof) with a known split for
// tests/parsers/t-pprof.sh: spinHeavy does three times the work of spinLight, each under a
// pprof label worker=heavy / worker=light.
package main

import (
	"context"
	"os"
	"runtime/pprof"
	"strconv"
)

var sink uint64

//go:noinline
func burn(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

//go:noinline
func spinLight(n int) { burn(n) }

//go:noinline
func spinHeavy(n int) { burn(3 * n) }

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	n, _ := strconv.Atoi(os.Args[2])
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		pprof.Do(ctx, pprof.Labels("worker", "light"), func(context.Context) { spinLight(n) })
		pprof.Do(ctx, pprof.Labels("worker", "heavy"), func(context.Context) { spinHeavy(n) })
	}
	pprof.StopCPUProfile()
	f.Close()
}
