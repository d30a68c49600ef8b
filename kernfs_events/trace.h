/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mirror of the running kernel's trace events: what trace_tree.c
 * (which directories exist) and trace_files.c (what their files do)
 * share.
 */
#ifndef KERNFS_EVENTS_TRACE_H
#define KERNFS_EVENTS_TRACE_H

#include <linux/list.h>

#include "kernfs_events.h"

struct trace_array;
struct trace_event_file;

/*
 * A change tracing told us about, waiting for the worker. Tracing calls
 * with event_mutex held, and building or removing kernfs nodes there
 * would deadlock (removal waits for operations that wait for the lock),
 * so the callbacks only queue; the worker applies the changes in order.
 */
struct kfe_change {
	struct list_head	list;	/* on kfe_changes, or empty */
	bool			removed;
	bool			instance;
};

/*
 * What the files of an events or a system directory act on: a trace
 * array, compared by tracing before use, and a system name, NULL for
 * the events directory.
 */
struct kfe_trace_dir {
	struct trace_array	*tr;
	const char		*system;
};

/* A trace array: the top level one or an instance. */
struct kfe_instance {
	struct kfe_change	change;
	struct list_head	list;		/* on kfe_instance_list */
	struct kfe_trace_dir	td;		/* priv of the events files */
	char			*name;		/* NULL for the top level */
	struct kfe_dir		*top;		/* instances/NAME */
	struct kfe_dir		*events;	/* its events directory */
	struct list_head	systems;	/* worker only */
};

/* A system directory of a trace array. */
struct kfe_system {
	struct list_head	list;		/* on instance->systems */
	struct kfe_trace_dir	td;		/* priv of its files */
	struct kfe_dir		*dir;
	int			nr_events;
};

/* An event directory. */
struct kfe_event {
	struct kfe_change	change;
	struct hlist_node	hash;		/* in kfe_event_hash */
	struct trace_event_file	*file;		/* pinned, priv of its files */
	struct kfe_instance	*instance;
	struct kfe_system	*system;
	struct kfe_dir		*dir;
	char			*system_name;
	char			*name;
};

/* trace_files.c */
extern const struct kfe_entry kfe_events_entries[];
extern const int kfe_nr_events_entries;
extern const struct kfe_entry kfe_system_entries[];
extern const int kfe_nr_system_entries;
extern const struct kfe_entry kfe_event_entries[];
extern const int kfe_nr_event_entries;

/* trace_tree.c */
int kfe_trace_init(void);
void kfe_trace_exit(void);

#endif /* KERNFS_EVENTS_TRACE_H */
