// SPDX-License-Identifier: MIT
/*
 * tests/lib/test_errseq.c - errseq_t (lib/errseq.c): every watcher
 * reports an error once, a watcher that starts after an error nobody saw
 * still reports it, and an error recorded after one was seen is new to
 * every watcher.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <upcache/errseq.h>

static void test_errseq_no_error(void **state)
{
	errseq_t eseq = 0, since;

	(void)state;
	since = errseq_sample(&eseq);
	assert_int_equal(errseq_check(&eseq, since), 0);
	assert_int_equal(errseq_check_and_advance(&eseq, &since), 0);
	/* 0 and values outside the errno range record nothing. */
	assert_int_equal(errseq_set(&eseq, 0), 0);
	assert_int_equal(errseq_set(&eseq, 5), 0);
	assert_int_equal(errseq_set(&eseq, -4096), 0);
	assert_int_equal(errseq_check_and_advance(&eseq, &since), 0);
}

/* Two watchers: each reports the error once. */
static void test_errseq_each_watcher_once(void **state)
{
	errseq_t eseq = 0, a, b;

	(void)state;
	a = errseq_sample(&eseq);
	b = errseq_sample(&eseq);
	errseq_set(&eseq, -EIO);
	assert_int_equal(errseq_check(&eseq, a), -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), 0);
	/* a's report does not use b's up. */
	assert_int_equal(errseq_check_and_advance(&eseq, &b), -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &b), 0);
}

/* A watcher that starts after an unseen error reports it; after a seen one, not. */
static void test_errseq_late_watcher(void **state)
{
	errseq_t eseq = 0, a, late;

	(void)state;
	a = errseq_sample(&eseq);
	errseq_set(&eseq, -ENOSPC);
	late = errseq_sample(&eseq);
	assert_int_equal(errseq_check_and_advance(&eseq, &late), -ENOSPC);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -ENOSPC);
	late = errseq_sample(&eseq);
	assert_int_equal(errseq_check_and_advance(&eseq, &late), 0);
}

/* The same error again, once it was seen, is a new error for everyone. */
static void test_errseq_repeat_after_seen(void **state)
{
	errseq_t eseq = 0, a, b;

	(void)state;
	a = errseq_sample(&eseq);
	b = errseq_sample(&eseq);
	errseq_set(&eseq, -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -EIO);
	errseq_set(&eseq, -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -EIO);
	/* b missed both: one report, of the last error. */
	assert_int_equal(errseq_check_and_advance(&eseq, &b), -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &b), 0);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), 0);
}

/* Errors nobody saw in between are one report, of the last. */
static void test_errseq_burst_unseen(void **state)
{
	errseq_t eseq = 0, a;
	errseq_t first;

	(void)state;
	a = errseq_sample(&eseq);
	first = errseq_set(&eseq, -EIO);
	/* Same error, not seen: nothing changes. */
	assert_int_equal(errseq_set(&eseq, -EIO), first);
	errseq_set(&eseq, -ENOSPC);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -ENOSPC);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), 0);
}

/*
 * On a word holding an error (seen or not), 0 and values outside the
 * errno range change nothing; -4095, the largest errno, is recorded.
 */
static void test_errseq_set_range(void **state)
{
	static const int ignored[] = { 0, 5, -4096, -100000 };
	errseq_t eseq = 0, a, word;
	unsigned int i, seen;

	(void)state;
	a = errseq_sample(&eseq);
	for (seen = 0; seen < 2; seen++) {
		word = errseq_set(&eseq, -EIO);
		if (seen) {
			assert_int_equal(errseq_check_and_advance(&eseq, &a),
					 -EIO);
			word = eseq;
		}
		for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++) {
			assert_int_equal(errseq_set(&eseq, ignored[i]), word);
			assert_int_equal(eseq, word);
		}
	}
	assert_int_equal(errseq_check(&eseq, a), 0);
	errseq_set(&eseq, -4095);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -4095);
}

/*
 * b samples after a saw the error; the error comes again and a sees
 * it.  b must still report it: the seen word a left is not the one b
 * sampled.
 */
static void test_errseq_repeat_seen_by_other(void **state)
{
	errseq_t eseq = 0, a, b;

	(void)state;
	a = errseq_sample(&eseq);
	errseq_set(&eseq, -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -EIO);
	b = errseq_sample(&eseq);
	errseq_set(&eseq, -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -EIO);
	assert_int_equal(errseq_check(&eseq, b), -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &b), -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &b), 0);
}

/*
 * An error recorded after the last one was seen is unseen itself: a
 * watcher that starts now reports it.
 */
static void test_errseq_new_error_unseen(void **state)
{
	errseq_t eseq = 0, a, late;

	(void)state;
	a = errseq_sample(&eseq);
	errseq_set(&eseq, -EIO);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -EIO);
	errseq_set(&eseq, -ENOSPC);
	late = errseq_sample(&eseq);
	assert_int_equal(late, 0);
	assert_int_equal(errseq_check_and_advance(&eseq, &late), -ENOSPC);
	assert_int_equal(errseq_check_and_advance(&eseq, &a), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errseq_no_error),
		cmocka_unit_test(test_errseq_each_watcher_once),
		cmocka_unit_test(test_errseq_late_watcher),
		cmocka_unit_test(test_errseq_repeat_after_seen),
		cmocka_unit_test(test_errseq_burst_unseen),
		cmocka_unit_test(test_errseq_set_range),
		cmocka_unit_test(test_errseq_repeat_seen_by_other),
		cmocka_unit_test(test_errseq_new_error_unseen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
