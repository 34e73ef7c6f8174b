#include <functional>
volatile long sink;
__attribute__((noinline)) int add(int a, int b) { for (int i = 0; i < 2000; i++) sink += i; return a + b; }
int main() { std::function<int (int, int)> f = add; long s = 0; for (int i = 0; i < 300000; i++) s += f(i, 1); return (int)(s & 1); }
