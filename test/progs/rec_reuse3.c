/* rec_reuse3.c - three threads reusing one address, as a server's workers
 * pass buffers on: each round, worker 1 makes a block (make_fn, 64 bytes)
 * and its events reach the ring; worker 2 frees it and at once makes
 * another (glibc's tcache gives it the same address), its events still in
 * its own slot; worker 3 frees that one and its events reach the ring
 * first; then worker 2's do.  So the second block's free arrives while the
 * first block waits in the recorder's table, and the first block's free
 * comes later, with the second block's allocation behind it.  All three
 * workers make blocks at the same call in serve_fn: one stack.
 * REUSE_ROUNDS x 2 blocks of 64 bytes, all freed.
 * With argv[1] (a file to wait for: a recorder attaching from outside),
 * instead: the main thread makes a block in make_fn, waits for the file,
 * frees the block and makes one again at its address in make_fn (one
 * call: one stack), which it keeps to the end.
 * With argv[1] and "owed" (from outside too, nothing made before the
 * file): OWED_ROUNDS rounds as above, each followed by worker 3 making a
 * third block at the address (staged), worker 1 freeing it (in the ring:
 * the recorder pairs that free with the second block, the one left
 * waiting), and, once the recorder has given up waiting for the first
 * block's allocation, worker 3's events: the third block's allocation
 * comes after every free.  OWED_ROUNDS x 3 blocks, all freed.  No stdio. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REUSE_ROUNDS 100
#define OWED_ROUNDS 5
#define OWED_WAIT_US 150000   /* longer than a recorder outside holds a free (RECW_HOLD_NS) */
#define REUSE_BURST 200   /* allocations that fill a slot (about 160 events) */

typedef struct cmd {
	void *p;       /* a block to free first, or NULL */
	int make;      /* then make one and send it back */
	int publish;   /* then fill a slot */
} cmd;

static int to_w[3][2], to_main[2];

__attribute__((noinline)) static void *make_fn(void)
{
	void *p = malloc(64);
	*(volatile char *)p = 1;
	__asm__ volatile("" ::: "memory");   /* not a tail call */
	return p;
}

__attribute__((noinline)) static void publish_fn(void)
{
	for (int i = 0; i < REUSE_BURST; i++) {
		void *p = malloc(24);
		*(volatile char *)p = 1;
		free(p);
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void serve_fn(int in, int out)
{
	cmd c;
	while (read(in, &c, sizeof(c)) == sizeof(c)) {
		if (c.p)
			free(c.p);
		void *q = c.make ? make_fn() : NULL;
		if (c.publish)
			publish_fn();
		if (write(out, &q, sizeof(q)) != sizeof(q))
			break;
	}
	__asm__ volatile("" ::: "memory");
}

static void *worker(void *arg)
{
	int (*fds)[2] = arg;
	serve_fn((*fds)[0], to_main[1]);
	return NULL;
}

/* Sends c to worker w and returns what it sent back. */
static void *ask(int w, cmd c)
{
	void *q = NULL;
	if (write(to_w[w][1], &c, sizeof(c)) != sizeof(c) || read(to_main[0], &q, sizeof(q)) != sizeof(q))
		exit(1);
	return q;
}

static void *volatile kept;

/* The block made before the recording began is freed in it; the one made
 * after at its address stays alive. */
static int late_main(const char *go)
{
	static volatile int blocks = 2;   /* not a count the compiler can unroll: one call of make_fn */
	void *q = NULL;
	for (int i = 0; i < blocks; i++) {
		if (q) {
			while (access(go, F_OK))
				usleep(1000);
			free(q);
		}
		q = make_fn();
	}
	kept = q;
	usleep(100000);
	return 0;
}

int main(int argc, char **argv)
{
	int owed = argc > 2 && !strcmp(argv[2], "owed");
	if (argc > 1 && !owed)
		return late_main(argv[1]);
	while (owed && access(argv[1], F_OK))
		usleep(1000);
	pthread_t t[3];
	if (pipe(to_main))
		return 1;
	for (int i = 0; i < 3; i++)
		if (pipe(to_w[i]) || pthread_create(&t[i], NULL, worker, &to_w[i]))
			return 1;
	for (int r = 0; r < (owed ? OWED_ROUNDS : REUSE_ROUNDS); r++) {
		void *a = ask(0, (cmd){ NULL, 1, 1 });   /* in the ring */
		void *b = ask(1, (cmd){ a, 1, 0 });      /* frees a, makes b at its address: both staged */
		ask(2, (cmd){ b, 0, 1 });                /* frees b: in the ring first */
		ask(1, (cmd){ NULL, 0, 1 });             /* then worker 2's */
		if (!owed)
			continue;
		void *c = ask(2, (cmd){ NULL, 1, 0 });   /* makes c at the address: staged */
		ask(0, (cmd){ c, 0, 1 });                /* frees c: in the ring */
		usleep(OWED_WAIT_US);
		ask(2, (cmd){ NULL, 0, 1 });             /* then c's allocation */
	}
	for (int i = 0; i < 3; i++) {
		close(to_w[i][1]);
		pthread_join(t[i], NULL);
	}
	return 0;
}
