// main.go - burns CPU in two goroutines under runtime/pprof, for flamekit's
// pprof-raw parser test data (go tool pprof -raw of the profile it writes).
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink uint64

func step(i int) uint64 { return uint64(i) * 3 }

//go:noinline
func leafA(n int) {
	for i := 0; i < n; i++ {
		sink += step(i)
	}
}

//go:noinline
func leafB(n int) {
	for i := 0; i < n; i++ {
		sink ^= uint64(i) * 7
	}
}

func worker(done chan bool) {
	for {
		select {
		case <-done:
			return
		default:
			leafB(100000)
		}
	}
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	done := make(chan bool)
	go worker(done)
	end := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(end) {
		leafA(100000)
	}
	close(done)
	pprof.StopCPUProfile()
	f.Close()
}
