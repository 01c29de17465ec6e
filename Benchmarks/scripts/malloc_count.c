// Counts heap allocations for `runtime-bench decode --allocations` (LD_PRELOAD; Linux/glibc).
//   gcc -shared -fPIC -O2 -o /tmp/malloc_count.so Benchmarks/scripts/malloc_count.c -ldl
//   LD_PRELOAD=/tmp/malloc_count.so Benchmarks/.build/release/runtime-bench decode
// Every malloc, calloc, realloc and aligned allocation in the process, on every thread, is counted;
// the benchmark reads the counter before and after its timed part.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdatomic.h>

static _Atomic unsigned long long count;
unsigned long long channelgen_malloc_count(void) { return atomic_load(&count); }

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t size) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_realloc(p, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12;  // ENOMEM
    *out = p;
    return 0;
}
void *aligned_alloc(size_t alignment, size_t size) { atomic_fetch_add_explicit(&count, 1, memory_order_relaxed); return __libc_memalign(alignment, size); }
