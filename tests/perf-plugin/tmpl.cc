// tmpl.cc - symbol names with template brackets and ampersands, to check that
// names the dlfilter folds are escaped in the SVG (frame pointers, no inlining).
#include <vector>

static volatile unsigned long sink;

template <typename T> __attribute__((noinline)) void churn(T &v)
{
	for (int r = 0; r < 2000; r++)
		for (auto &x : v)
			sink += x;
	__asm__ volatile("" ::: "memory");
}

int main()
{
	std::vector<int> v(100000, 1);
	for (int i = 0; i < 3; i++)
		churn<std::vector<int>>(v);
	return 0;
}
