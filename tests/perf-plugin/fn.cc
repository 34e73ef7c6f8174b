// fn.cc - a hot lambda called through std::function<int (int, int)>: C++ names
// with parentheses inside template arguments (perf-plugin/t-names.sh).
#include <functional>
#include <cstdlib>
static volatile int sink;
__attribute__((noinline)) static int spin(int a, int b)
{
	int s = 0;
	for (int i = 0; i < 20000; i++)
		s += (a ^ i) * b;
	return s;
}
int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	std::function<int (int, int)> f = [](int a, int b) { return spin(a, b); };
	for (long i = 0; i < ms * 100; i++)
		sink += f((int)i, 3);
	return 0;
}
