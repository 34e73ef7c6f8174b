#include <pthread.h>
#include <unistd.h>
#include <vector>
#include <map>
#include <string>
#include <thread>
#include <atomic>
std::atomic<long> sink;
namespace work {
template <typename T> struct Acc {
  T v{};
  __attribute__((noinline)) void add(T x) { for (int i = 0; i < 1000; i++) v += x * i; sink += (long)v; }
};
__attribute__((noinline)) void spin(std::vector<int> &v) { Acc<double> a; for (int x : v) a.add(x); }
__attribute__((noinline)) void sleeper(int ms) { usleep(ms * 1000); }
}
void cruncher() { std::vector<int> v(5000, 3); for (;;) work::spin(v); }
void napper() { for (;;) work::sleeper(7); }
int main() {
  std::thread a(cruncher), b(napper), c([] { std::map<std::string, int> m; for (long i = 0;; i++) { m[std::to_string(i % 1000)]++; if (i % 100000 == 0) usleep(1000); } });
  pthread_setname_np(a.native_handle(), "cruncher");
  pthread_setname_np(b.native_handle(), "napper");
  pthread_setname_np(c.native_handle(), "mapper λ");
  a.join();
}
