#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Asks the CPU to bring the cache line at `address` into its caches, for a read soon. A hint
/// only: it reads nothing the program can see, cannot fault (any address may be passed), and
/// changes no result. Swift has no prefetch of its own; this inline function compiles to one
/// instruction where it is called.
static inline void mr_prefetch_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
