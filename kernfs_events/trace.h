/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mirror of the running kernel's trace events: what trace_tree.c
 * (which directories exist) and trace_files.c (what their files do)
 * share.
 */
#ifndef KERNFS_EVENTS_TRACE_H
#define KERNFS_EVENTS_TRACE_H

#include <linux/list.h>
#include <linux/xarray.h>

#include "kernfs_events.h"

struct trace_array;
struct trace_event_file;

/*
 * What the files of an events or a system directory act on, by name as
 * a path names it: tracing finds the trace array and the system at each
 * call, and holds neither between calls. @instance is NULL for the top
 * level trace array, @system for the events directory.
 */
struct kfe_trace_dir {
	const char		*instance;
	const char		*system;
};

/*
 * A trace array: the top level one or an instance. Its events directory
 * is lazy: the system directories are made when someone looks into it.
 */
struct kfe_instance {
	struct list_head	change;		/* on kfe_instance_changes */
	bool			removed;	/* the change is a removal */
	struct list_head	list;		/* on kfe_instance_list */
	struct trace_array	*tr;		/* only compared, by callbacks */
	struct kfe_trace_dir	td;		/* priv of the events files */
	char			*name;		/* NULL for the top level */
	struct kfe_dir		*top;		/* instances/NAME */
	struct kfe_dir		*events;	/* its events directory */
	struct list_head	systems;	/* its systems */
	bool			populated;	/* events/ has its systems */
	u32			ino_base;	/* its inode numbers, or 0 */
	struct xarray		system_inos;	/* its systems' blocks */
	u32			next_system_ino;
};

/*
 * A system of a trace array, while it has events. Its directory exists
 * once the events directory is populated, and is lazy in turn.
 */
struct kfe_system {
	struct list_head	list;		/* on instance->systems */
	struct kfe_trace_dir	td;		/* priv of its files */
	struct kfe_instance	*instance;
	int			nr_events;	/* events tracing has */
	int			nr_refs;	/* kfe_events pointing here */
	struct kfe_dir		*dir;
	bool			populated;	/* dir has its events */
	int			ino_index;	/* its block, or -1 */
};

/*
 * An event of a trace array: all that exists of it until someone looks
 * into its system directory, so it is kept small. Its name is read from
 * the event call, which tracing frees after telling us of the removal.
 */
struct kfe_event {
	struct hlist_node	node;	/* in the hash, pending or dead */
	struct trace_event_file	*file;	/* pinned, priv of its files */
	struct kfe_system	*system;
	struct kfe_dir		*dir;	/* once its system is populated */
};

/* trace_files.c: the files of each kind of directory, as tracing lists them */
struct kfe_trace_files {
	struct kfe_entry	*entries;
	int			nr;
};

extern struct kfe_trace_files kfe_event_files;
extern struct kfe_trace_files kfe_system_files;
extern struct kfe_trace_files kfe_events_files;

int kfe_trace_files_init(void);
void kfe_trace_files_exit(void);

/* trace_tree.c */
int kfe_trace_init(void);
void kfe_trace_exit(void);

#endif /* KERNFS_EVENTS_TRACE_H */
