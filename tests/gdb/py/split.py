# Two functions at a 3:1 CPU split: heavy() does three times the work of light(),
# in small alternating slices (so any window of the run sees the same split).
def work(n):
    x = 0
    for i in range(n):
        x += i * i
    return x

def heavy():
    return work(3000)

def light():
    return work(1000)

def main():
    print("ready", flush=True)
    while True:
        heavy()
        light()

main()
