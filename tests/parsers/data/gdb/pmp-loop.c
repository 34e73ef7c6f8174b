#include <pthread.h>
#include <unistd.h>
volatile double sink;
__attribute__((noinline)) void leaf_a(int n){ for(int i=0;i<n;i++) sink+=i*0.5; }
__attribute__((noinline)) void leaf_b(int n){ for(int i=0;i<n;i++) sink-=i*0.25; }
__attribute__((noinline)) void mid(int k){ if(k&1) leaf_a(20000); else leaf_b(30000); }
void *worker(void *a){ for(;;) mid((int)(long)a++); return 0; }
void *idler(void *a){ for(;;) usleep(5000); return 0; }
int main(void){ pthread_t t[3]; pthread_create(&t[0],0,worker,0); pthread_create(&t[1],0,worker,(void*)1); pthread_create(&t[2],0,idler,0); for(;;) leaf_a(10000); }
