# Works for a while under sampling, then exits on its own (status 0).
import sys

def work(n):
    x = 0
    for i in range(n):
        x += i
    return x

def main(rounds):
    print("ready", flush=True)
    for _ in range(rounds):
        work(10000)

main(int(sys.argv[1]))
