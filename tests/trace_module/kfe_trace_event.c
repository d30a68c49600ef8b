// SPDX-License-Identifier: GPL-2.0
/*
 * A module with one trace event: loading it adds events/kfe_test/ to
 * tracefs and to the kernfs_events mirror, unloading it removes them.
 */
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "kfe_test_event.h"

static int __init kfe_trace_event_init(void)
{
	trace_kfe_test_hello(1);
	return 0;
}

static void __exit kfe_trace_event_exit(void)
{
}

module_init(kfe_trace_event_init);
module_exit(kfe_trace_event_exit);

MODULE_DESCRIPTION("A trace event for the kernfs_events checks");
MODULE_LICENSE("GPL");
