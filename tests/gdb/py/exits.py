# Works until the file named on the command line exists, then exits (status 0):
# the test creates it once the sampler is attached.
import os
import sys

def work(n):
    x = 0
    for i in range(n):
        x += i
    return x

def main(stop):
    print("ready", flush=True)
    while not os.path.exists(stop):
        for _ in range(20):
            work(10000)

main(sys.argv[1])
