/* allocs.c - asks malloc for 3 x 300 KB in alloc_big and 1 x 300 KB in alloc_small
 * (3000-byte blocks), freeing each at once. */
#include <stdlib.h>
static void *volatile keep;
void *al(size_t n)
{
	void *p = malloc(n);
	keep = p;
	return p;
}
void alloc_big(void)
{
	for (int i = 0; i < 300; i++)
		free(al(3000));
	keep = 0;
}
void alloc_small(void)
{
	for (int i = 0; i < 100; i++)
		free(al(3000));
	keep = 0;
}
int main(void)
{
	alloc_big();
	alloc_small();
	return 0;
}
