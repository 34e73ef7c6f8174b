// fk-perf-cxx.cc - C++ program recorded by tests/perf/record.sh: a lambda, operator(),
// a template, a function in an anonymous namespace, std::function; names perf prints
// with parentheses and angle brackets (what --full-names is for).
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>

static volatile unsigned long sink;

namespace {
struct Accumulator {
	__attribute__((noinline)) void operator()(int n) const
	{
		for (int i = 0; i < n; i++)
			sink += static_cast<unsigned long>(i) * 3;
	}
};

__attribute__((noinline)) void hidden_work(int n)
{
	for (int i = 0; i < n; i++)
		sink ^= static_cast<unsigned long>(i);
}
} // namespace

template <typename T> __attribute__((noinline)) T sum_to(T n)
{
	T s = 0;
	for (T i = 0; i < n; i++)
		s += i;
	return s;
}

static double now()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 0.5, end = now() + secs;
	auto lambda = [](int n) __attribute__((noinline)) {
		for (int i = 0; i < n; i++)
			sink += static_cast<unsigned long>(i) ^ 5;
	};
	std::function<void(int)> fn = Accumulator();
	std::vector<long> v;
	for (int k = 0; now() < end; k++) {
		switch (k % 4) {
		case 0: lambda(20000); break;
		case 1: fn(20000); break;
		case 2: hidden_work(20000); break;
		default: v.push_back(sum_to<long>(20000)); break;
		}
	}
	return v.empty() && sink == 1 ? 1 : 0;
}
