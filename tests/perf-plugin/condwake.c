/* condwake.c - a worker thread blocks on a condition variable in wait_for_work; the
 * main thread signals it from signal_work after known work (spin), ten rounds.
 * The condition variable is a futex word with the system calls made here: glibc's
 * pthread_cond_* are built without frame pointers, so a frame-pointer callchain
 * taken inside them ends there and would never show wait_for_work or signal_work. */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
static volatile int seq, done_seq;
static volatile unsigned long sink;

static inline __attribute__((always_inline)) long futex(volatile int *addr, int op, int val)
{
	long ret;
	register long r10 __asm__("r10") = 0;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_futex), "D"(addr), "S"((long)op), "d"((long)val), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* wait until *w differs from seen */
void wait_for_work(volatile int *w, int seen)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == seen)
		futex(w, FUTEX_WAIT_PRIVATE, seen);
}

void signal_work(volatile int *w)
{
	__atomic_add_fetch(w, 1, __ATOMIC_RELEASE);
	futex(w, FUTEX_WAKE_PRIVATE, 1);
}

void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		wait_for_work(&seq, i);
		signal_work(&done_seq);
	}
	return 0;
}

void spin(void)
{
	for (long k = 0; k < 30000000; k++)
		sink += (unsigned long)k;
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	for (int i = 0; i < 10; i++) {
		spin();
		signal_work(&seq);
		wait_for_work(&done_seq, i);
	}
	pthread_join(t, 0);
	return 0;
}
