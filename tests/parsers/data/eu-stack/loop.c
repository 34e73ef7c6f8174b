#include <pthread.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf_a(void) { for (unsigned long i = 0; i < 100000000UL; i++) sink += i; }
__attribute__((noinline)) static void *worker(void *a) { (void)a; for (;;) leaf_a(); return 0; }
__attribute__((noinline)) static void idle(void) { for (;;) sleep(1); }
int main(void) { pthread_t t; pthread_create(&t, 0, worker, 0); idle(); }
