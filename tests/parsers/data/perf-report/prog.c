#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
volatile double sink;
__attribute__((noinline)) void leaf_a(int n){ for(int i=0;i<n;i++) sink+=i*0.5; }
__attribute__((noinline)) void leaf_b(int n){ for(int i=0;i<n;i++) sink-=i*0.25; }
__attribute__((noinline)) void mid(int k){ if(k&1) leaf_a(20000); else leaf_b(30000); }
void *worker(void *a){ for(long k=0;k<40000;k++) mid((int)k); return 0; }
int main(void){ pthread_t t; pthread_create(&t,0,worker,0); for(long k=0;k<30000;k++) leaf_a(10000); pthread_join(t,0); return 0; }
