/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One trace event, kfe_test/kfe_test_hello, for the checks that load and
 * unload a module with trace events and watch its directory come and go.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kfe_test

#if !defined(KFE_TEST_EVENT_H) || defined(TRACE_HEADER_MULTI_READ)
#define KFE_TEST_EVENT_H

#include <linux/tracepoint.h>

TRACE_EVENT(kfe_test_hello,
	    TP_PROTO(int value),
	    TP_ARGS(value),
	    TP_STRUCT__entry(__field(int, value)),
	    TP_fast_assign(__entry->value = value;),
	    TP_printk("value=%d", __entry->value)
);

#endif /* KFE_TEST_EVENT_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kfe_test_event
#include <trace/define_trace.h>
