# heavy() does 3x light()'s work in alternating slices; every step costs the same (ints kept
# under 2^30, none of the cached small ones: x += i*i unmasked measured 0.76-0.78, not 0.75).
def work(n):
    x = 0
    for i in range(1000, 1000 + n):
        x = (x + i * i) & 0xFFFF
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
