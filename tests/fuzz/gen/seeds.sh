#!/usr/bin/env bash
# seeds.sh OUT - writes real seed inputs for the thin fuzz corpora into OUT/FORMAT/
# from the tools on this machine (how the named seeds in tests/fuzz/corpus were
# made): node --cpu-prof, go's runtime/pprof and `go tool pprof`, eu-stack and
# jstack on small multithreaded programs, and macOS `sample` reports written by
# sample-report.py from those stacks. A missing tool skips its formats. Copy the
# files you want into tests/fuzz/corpus/FORMAT, then `make fuzz-run fuzz-merge`.
set -u
OUT=$(realpath -m "${1:?usage: seeds.sh OUT}")
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
FK=${FLAMEKIT:-$TOP/build/flamekit}
W=$(mktemp -d /tmp/fk-seeds.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
mkdir -p "$OUT"/{cpuprofile,pprof,pprof-raw,eu-stack,jstack,sample}
cd "$W" || exit 1

if command -v node > /dev/null; then
	cat > a.js <<'EOF'
const o = { 'we<ird&"name': function () { let s = 0; for (let i = 0; i < 2e5; i++) s += i % 7; return s; } };
class Émile { get ß() { return fib(18); } static async run() { return o['we<ird&"name']() } }
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const f = new Function('n', 'let x=0; for (let i=0;i<n;i++) x^=i*31; return x');
const t0 = Date.now();
while (Date.now() - t0 < +(process.argv[2] || 150)) { new Émile().ß; f(3e4); Émile.run(); [3,1,2].sort((a, b) => a - b); JSON.parse('{"a":[1,2,3]}'); }
EOF
	for i in 1 2 3; do
		node --cpu-prof --cpu-prof-dir="cp$i" --cpu-prof-interval $((i * 2000)) a.js $((60 * i))
		cp cp$i/*.cpuprofile "$OUT/cpuprofile/node-$i.cpuprofile"
	done
	node --cpu-prof --cpu-prof-dir=cp4 -e 'setTimeout(() => {}, 50)' && cp cp4/*.cpuprofile "$OUT/cpuprofile/node-4.cpuprofile"
	python3 - "$OUT/cpuprofile" cp1/*.cpuprofile cp2/*.cpuprofile <<'EOF'
import json, sys
d = json.load(open(sys.argv[2]))
open(sys.argv[1] + '/pretty.cpuprofile', 'w').write(json.dumps(d, indent=1, ensure_ascii=False))
d = json.load(open(sys.argv[3])); d.pop('timeDeltas', None)
open(sys.argv[1] + '/nodeltas.cpuprofile', 'w').write(json.dumps(d))
EOF
fi

if command -v go > /dev/null; then
	mkdir -p gop && cat > gop/main.go <<'EOF'
package main

import (
	"context"
	"crypto/sha256"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"
)

type T[K comparable] struct{ m map[K]int }

func (t *T[K]) Add(k K) { t.m[k]++ }

func spin(d time.Duration) int {
	x := 0
	for t := time.Now(); time.Since(t) < d; {
		x += len(strings.Repeat("ab", 10))
	}
	return x
}

func hash(d time.Duration) {
	b := []byte("x")
	for t := time.Now(); time.Since(t) < d; {
		s := sha256.Sum256(b)
		b = s[:]
	}
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	d := 60 * time.Millisecond
	done := make(chan bool)
	go func() {
		pprof.Do(context.Background(), pprof.Labels("worker", "heavy"), func(context.Context) { hash(d) })
		done <- true
	}()
	t := &T[string]{m: map[string]int{}}
	for i := 0; i < 20000; i++ {
		t.Add(strings.Repeat("k", i%13))
	}
	s := make([]int, 200000)
	for i := range s {
		s[i] = (i * 7919) % 1000
	}
	sort.Ints(s)
	spin(d)
	func() { spin(d / 2) }()
	<-done
	pprof.StopCPUProfile()
	f.Close()
	if len(os.Args) > 2 {
		h, _ := os.Create(os.Args[2])
		pprof.Lookup("heap").WriteTo(h, 0)
		h.Close()
		g, _ := os.Create(os.Args[3])
		pprof.Lookup("goroutine").WriteTo(g, 0)
		g.Close()
	}
}
EOF
	printf 'module gop\ngo 1.21\n' > gop/go.mod
	(cd gop && go build -o gop . && ./gop cpu1.pb.gz heap.pb.gz gor.pb.gz && ./gop cpu2.pb.gz)
	for f in cpu1 cpu2 heap gor; do
		cp gop/$f.pb.gz "$OUT/pprof/go-$f.pb.gz"
		gunzip -c gop/$f.pb.gz > "$OUT/pprof/go-$f.pb"
		go tool pprof -raw gop/$f.pb.gz > "$OUT/pprof-raw/go-$f.txt" 2>/dev/null
	done
	go tool pprof -proto -output "$OUT/pprof/reenc-cpu1.pb.gz" gop/cpu1.pb.gz 2>/dev/null
	go tool pprof -raw -sample_index=1 gop/heap.pb.gz > "$OUT/pprof-raw/go-heap-idx1.txt" 2>/dev/null
	go tool pprof -raw -lines gop/cpu1.pb.gz > "$OUT/pprof-raw/go-cpu1-lines.txt" 2>/dev/null
	go tool pprof -raw -tagfocus=worker=heavy gop/cpu1.pb.gz > "$OUT/pprof-raw/go-cpu1-focus.txt" 2>/dev/null
fi

if command -v eu-stack > /dev/null && command -v gcc > /dev/null && command -v g++ > /dev/null; then
	cat > mt.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) void inner(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void leaf_a(void) { for (;;) inner(1000); }
__attribute__((noinline)) void leaf_b(void) { for (;;) { inner(10); usleep(100); } }
static void *worker(void *a) { if (a) leaf_a(); else leaf_b(); return NULL; }
int main(void) { pthread_t t[3]; for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)(i & 1)); sleep(30); return 0; }
EOF
	cat > mt2.cc <<'EOF'
#include <thread>
#include <vector>
#include <unistd.h>
namespace ns { template <class T> struct Box { T v; __attribute__((noinline)) T spin() { volatile T x = v; for (;;) x = x + v; return x; } }; }
int main() { std::vector<std::thread> ts; ts.emplace_back([] { ns::Box<int>{1}.spin(); }); ts.emplace_back([] { ns::Box<double>{1.5}.spin(); }); ts.emplace_back([] { sleep(30); }); sleep(30); }
EOF
	gcc -g -O2 -pthread mt.c -o mt && g++ -g -O1 -pthread mt2.cc -o mt2
	./mt & p1=$!; ./mt2 & p2=$!; pids+=("$p1" "$p2")
	sleep 0.5
	i=0
	for p in $p1 $p2; do
		for fl in "" "-i" "-s" "-v" "-a -m" "-b -i -s" "-r" "-n 3"; do
			i=$((i + 1))
			# shellcheck disable=SC2086
			timeout 20 eu-stack $fl -p $p > "$OUT/eu-stack/eu-$i.txt" 2>/dev/null
		done
	done
	timeout 10 eu-stack -1 -p $p1 > "$OUT/eu-stack/eu-one.txt" 2>&1
	kill $p1 $p2
	cat "$OUT"/eu-stack/eu-{1,2,7}.txt > "$OUT/eu-stack/eu-loop.txt"
fi

if command -v javac > /dev/null && command -v jstack > /dev/null; then
	cat > Spin.java <<'EOF'
import java.util.concurrent.*;
import java.util.concurrent.locks.*;
import java.util.Random;
public class Spin {
    static final Object lock = new Object();
    static final ReentrantLock rl = new ReentrantLock();
    static volatile long sink;
    interface Op { void run(); }
    static void busy() { for (;;) sink += Math.abs(new Random(sink).nextInt()) % 7; }
    static void holder() { synchronized (lock) { try { Thread.sleep(60000); } catch (InterruptedException e) {} } }
    static void waiter() { synchronized (lock) { sink++; } }
    static void parked() { rl.lock(); }
    public static void main(String[] a) throws Exception {
        new Thread(Spin::busy, "busy <worker> & \"co\"").start();
        new Thread(Spin::holder, "holder").start();
        Thread.sleep(100);
        new Thread(Spin::waiter, "waiter-ü").start();
        rl.lock();
        new Thread(Spin::parked, "parked").start();
        ExecutorService ex = Executors.newFixedThreadPool(2);
        ex.submit(() -> { Op o = () -> { try { Thread.sleep(60000); } catch (InterruptedException e) {} }; o.run(); });
        System.out.println(ProcessHandle.current().pid());
        Thread.sleep(60000);
    }
}
EOF
	javac Spin.java && { java -Xint Spin > pid.txt & pids+=($!); }
	for _ in $(seq 50); do [ -s pid.txt ] && break; sleep 0.2; done
	p=$(cat pid.txt)
	sleep 1
	jstack "$p" > "$OUT/jstack/j-plain.txt"
	jstack -l "$p" > "$OUT/jstack/j-locks.txt"
	jstack -e "$p" > "$OUT/jstack/j-ext.txt"
	python3 - "$OUT/jstack" <<'EOF'
import sys
d = sys.argv[1]
for src, dst in [('j-locks.txt', 'j-small-locks.txt'), ('j-plain.txt', 'j-small.txt')]:
    out = ''
    for b in open(d + '/' + src).read().split('\n\n'):
        if len(out) + len(b) <= 3500:
            out += b + '\n\n'
    open(d + '/' + dst, 'w').write(out)
EOF
fi

# macOS sample reports from the stacks above (the tool does not run here)
i=0
for src in "$OUT/eu-stack/eu-loop.txt" "$OUT/jstack/j-small.txt" "$OUT/pprof/go-cpu1.pb.gz" "$OUT/eu-stack/eu-14.txt"; do
	[ -s "$src" ] || continue
	i=$((i + 1))
	"$FK" collapse --tid "$src" 2>/dev/null | sed '/^TID=/!s/^/Thread_1;/' > s$i.folded
	for seed in 1 2; do
		python3 "$TOP/tests/fuzz/gen/sample-report.py" s$i.folded $seed$i > "$OUT/sample/gen-s$i-$seed.txt"
	done
done
for d in "$OUT"/*/; do echo "$(basename "$d"): $(ls "$d" | wc -l) files"; done
