// SPDX-License-Identifier: GPL-2.0
/*
 * kfe_synth: a synthetic event source for kernfs_events, for tests and
 * benchmarks. It builds synth/<system>/<event>/ trees of any size with
 * the kernfs_events API and a configurable set of event files:
 *
 *   insmod kfe_synth.ko nr_systems=10 nr_events=100 files=enable,format
 *   echo 'add mysys myevent' > $MNT/synth/control
 *   echo 'remove mysys myevent' > $MNT/synth/control
 *   echo 'remove mysys' > $MNT/synth/control
 *   cat $MNT/synth/control          # "systems 10\nevents 1000\n"
 *
 * Event files, named and shaped as in tracefs:
 *   enable  0640  "0" or "1"; writing anything else fails with EINVAL
 *   filter  0640  a printable string, "none" by default; its length
 *                 changes, so size=exact must follow it
 *   format  0440  a description that names the event and its number
 *   id      0440  the number of the event
 *   hist    0440  counts the writes to inject: it changes without a
 *                 write to it, as a tracing histogram does
 *   inject  0200  write-only
 */
#include <linux/ctype.h>
#include <linux/kernfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kernfs_events.h"

#define SYNTH_NAME_MAX		64
#define SYNTH_FILTER_MAX	256

static unsigned int nr_systems = 2;
module_param(nr_systems, uint, 0444);
MODULE_PARM_DESC(nr_systems, "systems created at load (default 2)");

static unsigned int nr_events = 8;
module_param(nr_events, uint, 0444);
MODULE_PARM_DESC(nr_events, "events per system created at load (default 8)");

static char *files = "enable,filter,format,id";
module_param(files, charp, 0444);
MODULE_PARM_DESC(files,
		 "event files, from enable,filter,format,id,hist,inject (default enable,filter,format,id)");

struct synth_system {
	struct list_head	list;
	struct list_head	events;
	struct kfe_dir		*dir;
	char			name[];
};

struct synth_event {
	struct list_head	list;
	struct kfe_dir		*dir;
	unsigned int		id;
	struct mutex		lock;	/* enabled and filter */
	bool			enabled;
	char			*filter;
	atomic_t		injected;	/* writes to inject */
	char			name[];
};

/* Protects the lists and serialises adding and removing. */
static DEFINE_MUTEX(synth_lock);
static LIST_HEAD(synth_systems);
static struct kfe_dir *synth_root;
/* Read by the control file's show without synth_lock: see its comment. */
static atomic_t synth_nr_systems = ATOMIC_INIT(0);
static atomic_t synth_nr_events = ATOMIC_INIT(0);
static unsigned int synth_next_id = 1;
static unsigned long synth_files_mask;

static int synth_enable_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct synth_event *ev = kn->priv;

	mutex_lock(&ev->lock);
	seq_printf(sf, "%d\n", ev->enabled);
	mutex_unlock(&ev->lock);
	return 0;
}

static ssize_t synth_enable_write(struct kernfs_open_file *of, char *buf,
				  size_t bytes, loff_t off)
{
	struct synth_event *ev = of->kn->priv;
	bool on;

	if (sysfs_streq(buf, "1"))
		on = true;
	else if (sysfs_streq(buf, "0"))
		on = false;
	else
		return -EINVAL;

	mutex_lock(&ev->lock);
	ev->enabled = on;
	mutex_unlock(&ev->lock);
	return bytes;
}

static int synth_filter_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct synth_event *ev = kn->priv;

	mutex_lock(&ev->lock);
	seq_printf(sf, "%s\n", ev->filter ?: "none");
	mutex_unlock(&ev->lock);
	return 0;
}

/* A filter is one line of printable characters; "0" clears it. */
static ssize_t synth_filter_write(struct kernfs_open_file *of, char *buf,
				  size_t bytes, loff_t off)
{
	struct synth_event *ev = of->kn->priv;
	char *text = strim(buf), *filter = NULL, *p;

	if (!*text)
		return -EINVAL;
	if (strcmp(text, "0")) {
		for (p = text; *p; p++)
			if (!isprint(*p))
				return -EINVAL;
		filter = kstrdup(text, GFP_KERNEL);
		if (!filter)
			return -ENOMEM;
	}

	mutex_lock(&ev->lock);
	swap(ev->filter, filter);
	mutex_unlock(&ev->lock);
	kfree(filter);
	return bytes;
}

static int synth_format_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct synth_event *ev = kn->priv;

	seq_printf(sf, "name: %s\nID: %u\nformat:\n", ev->name, ev->id);
	seq_puts(sf, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n");
	seq_puts(sf, "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n");
	seq_printf(sf, "\tfield:u64 %s_value;\toffset:8;\tsize:8;\tsigned:0;\n\n",
		   ev->name);
	seq_printf(sf, "print fmt: \"%s=%%llu\", REC->%s_value\n", ev->name,
		   ev->name);
	return 0;
}

static int synth_id_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct synth_event *ev = kn->priv;

	seq_printf(sf, "%u\n", ev->id);
	return 0;
}

static int synth_hist_show(struct seq_file *sf, struct kernfs_node *kn)
{
	struct synth_event *ev = kn->priv;

	seq_printf(sf, "# event histogram\n#\n# injected: %d\n",
		   atomic_read(&ev->injected));
	return 0;
}

/* Counts in hist, which is not told: its size must follow at stat. */
static ssize_t synth_inject_write(struct kernfs_open_file *of, char *buf,
				  size_t bytes, loff_t off)
{
	struct synth_event *ev = of->kn->priv;

	atomic_inc(&ev->injected);
	return bytes;
}

/*
 * Each readable file's read and size come from one show function: the
 * read through seq_show(), the size through @size_fn, kfe_file_size()
 * or, for content whose length is fixed for the event's life,
 * kfe_fixed_file_size().
 */
#define SYNTH_DEFINE_SHOW(name, size_fn)				\
static int synth_##name##_seq_show(struct seq_file *sf, void *v)	\
{									\
	struct kernfs_open_file *of = sf->private;			\
									\
	return synth_##name##_show(sf, of->kn);				\
}									\
									\
static loff_t synth_##name##_size(struct kernfs_node *kn)		\
{									\
	return size_fn(kn, synth_##name##_show);			\
}

SYNTH_DEFINE_SHOW(enable, kfe_file_size)
SYNTH_DEFINE_SHOW(filter, kfe_file_size)
SYNTH_DEFINE_SHOW(format, kfe_fixed_file_size)
SYNTH_DEFINE_SHOW(id, kfe_fixed_file_size)
SYNTH_DEFINE_SHOW(hist, kfe_file_size)

static const struct kernfs_ops synth_enable_ops = {
	.seq_show	= synth_enable_seq_show,
	.size		= synth_enable_size,
	.write		= synth_enable_write,
};

static const struct kernfs_ops synth_filter_ops = {
	.seq_show		= synth_filter_seq_show,
	.size			= synth_filter_size,
	.write			= synth_filter_write,
	.atomic_write_len	= SYNTH_FILTER_MAX,
};

static const struct kernfs_ops synth_format_ops = {
	.seq_show	= synth_format_seq_show,
	.size		= synth_format_size,
};

static const struct kernfs_ops synth_id_ops = {
	.seq_show	= synth_id_seq_show,
	.size		= synth_id_size,
};

static const struct kernfs_ops synth_hist_ops = {
	.seq_show	= synth_hist_seq_show,
	.size		= synth_hist_size,
};

static const struct kernfs_ops synth_inject_ops = {
	.write		= synth_inject_write,
};

/* The mode and ops of each event file, in the order of synth_entries. */
static const struct {
	umode_t mode;
	const struct kernfs_ops *ops;
} synth_files[] = {
	{ 0640, &synth_enable_ops },
	{ 0640, &synth_filter_ops },
	{ 0440, &synth_format_ops },
	{ 0440, &synth_id_ops },
	{ 0440, &synth_hist_ops },
	{ 0200, &synth_inject_ops },
};

static int synth_event_callback(const char *name, umode_t *mode, void **data,
				const struct kernfs_ops **ops);

static const struct kfe_entry synth_entries[] = {
	{ "enable",	synth_event_callback },
	{ "filter",	synth_event_callback },
	{ "format",	synth_event_callback },
	{ "id",		synth_event_callback },
	{ "hist",	synth_event_callback },
	{ "inject",	synth_event_callback },
};

/* Only the files chosen with files= exist. */
static int synth_event_callback(const char *name, umode_t *mode, void **data,
				const struct kernfs_ops **ops)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(synth_entries); i++) {
		if (strcmp(name, synth_entries[i].name))
			continue;
		if (!test_bit(i, &synth_files_mask))
			return 0;
		*mode = synth_files[i].mode;
		*ops = synth_files[i].ops;
		return 1;
	}
	return 0;
}

static struct synth_system *synth_find_system(const char *name)
{
	struct synth_system *sys;

	list_for_each_entry(sys, &synth_systems, list)
		if (!strcmp(sys->name, name))
			return sys;
	return NULL;
}

static struct synth_event *synth_find_event(struct synth_system *sys,
					    const char *name)
{
	struct synth_event *ev;

	list_for_each_entry(ev, &sys->events, list)
		if (!strcmp(ev->name, name))
			return ev;
	return NULL;
}

static void synth_free_event(struct synth_event *ev)
{
	kfree(ev->filter);
	kfree(ev);
}

/* Remove an event: once kfe_remove_dir() returns, no op uses it. */
static void synth_remove_event(struct synth_event *ev)
{
	list_del(&ev->list);
	kfe_remove_dir(ev->dir);
	synth_free_event(ev);
	atomic_dec(&synth_nr_events);
}

static void synth_remove_system(struct synth_system *sys)
{
	struct synth_event *ev, *tmp;

	list_del(&sys->list);
	kfe_remove_dir(sys->dir);	/* hides all its events at once */
	list_for_each_entry_safe(ev, tmp, &sys->events, list) {
		synth_free_event(ev);
		atomic_dec(&synth_nr_events);
	}
	kfree(sys);
	atomic_dec(&synth_nr_systems);
}

/* Add @event to @system, creating the system if needed. */
static int synth_add(const char *system, const char *event)
{
	struct synth_system *sys;
	struct synth_event *ev;
	bool new_sys = false;
	int ret;

	lockdep_assert_held(&synth_lock);
	sys = synth_find_system(system);
	if (!sys) {
		sys = kzalloc(struct_size(sys, name, strlen(system) + 1),
			      GFP_KERNEL);
		if (!sys)
			return -ENOMEM;
		strscpy(sys->name, system, strlen(system) + 1);
		INIT_LIST_HEAD(&sys->events);
		sys->dir = kfe_create_dir(sys->name, synth_root, NULL, 0, sys);
		if (IS_ERR(sys->dir)) {
			ret = PTR_ERR(sys->dir);
			kfree(sys);
			return ret;
		}
		list_add_tail(&sys->list, &synth_systems);
		atomic_inc(&synth_nr_systems);
		new_sys = true;
	} else if (synth_find_event(sys, event)) {
		return -EEXIST;
	}

	ev = kzalloc(struct_size(ev, name, strlen(event) + 1), GFP_KERNEL);
	if (!ev) {
		ret = -ENOMEM;
		goto out_sys;
	}
	strscpy(ev->name, event, strlen(event) + 1);
	mutex_init(&ev->lock);
	ev->id = synth_next_id;
	ev->dir = kfe_create_dir(ev->name, sys->dir, synth_entries,
				 ARRAY_SIZE(synth_entries), ev);
	if (IS_ERR(ev->dir)) {
		ret = PTR_ERR(ev->dir);
		kfree(ev);
		goto out_sys;
	}
	synth_next_id++;
	list_add_tail(&ev->list, &sys->events);
	atomic_inc(&synth_nr_events);
	return 0;

out_sys:
	if (new_sys)
		synth_remove_system(sys);
	return ret;
}

static bool synth_valid_name(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > SYNTH_NAME_MAX)
		return false;
	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '_')
			return false;
	return true;
}

/* "add SYSTEM EVENT", "remove SYSTEM EVENT" or "remove SYSTEM". */
static ssize_t synth_control_write(struct kernfs_open_file *of, char *buf,
				   size_t bytes, loff_t off)
{
	char *args[4] = {}, *p = strim(buf);
	struct synth_system *sys;
	struct synth_event *ev;
	int n = 0, ret;

	while (n < ARRAY_SIZE(args) && (args[n] = strsep(&p, " \t")))
		if (*args[n])
			n++;
	if (n < 2 || n > 3 || !synth_valid_name(args[1]) ||
	    (n == 3 && !synth_valid_name(args[2])))
		return -EINVAL;

	mutex_lock(&synth_lock);
	sys = synth_find_system(args[1]);
	if (!strcmp(args[0], "add") && n == 3) {
		ret = synth_add(args[1], args[2]);
	} else if (!strcmp(args[0], "remove")) {
		ev = sys && n == 3 ? synth_find_event(sys, args[2]) : NULL;
		ret = sys && (n == 2 || ev) ? 0 : -ENOENT;
		if (ev)
			synth_remove_event(ev);
		else if (!ret)
			synth_remove_system(sys);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&synth_lock);
	if (ret)
		return ret;
	return bytes;
}

/* Not under synth_lock: the counts are read while an event is added. */
static int synth_control_show(struct seq_file *sf, struct kernfs_node *kn)
{
	seq_printf(sf, "systems %d\nevents %d\n",
		   atomic_read(&synth_nr_systems), atomic_read(&synth_nr_events));
	return 0;
}

SYNTH_DEFINE_SHOW(control, kfe_file_size)

static const struct kernfs_ops synth_control_ops = {
	.seq_show		= synth_control_seq_show,
	.size			= synth_control_size,
	.write			= synth_control_write,
	.atomic_write_len	= 2 * SYNTH_NAME_MAX + 16,
};

static int synth_root_callback(const char *name, umode_t *mode, void **data,
			       const struct kernfs_ops **ops)
{
	*mode = 0600;
	*ops = &synth_control_ops;
	return 1;
}

static const struct kfe_entry synth_root_entries[] = {
	{ "control",	synth_root_callback },
};

static int synth_parse_files(void)
{
	char *list, *p, *name;
	int i, ret = 0;

	list = kstrdup(files, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	p = list;
	while (!ret && (name = strsep(&p, ",")) != NULL) {
		for (i = 0; i < ARRAY_SIZE(synth_entries); i++)
			if (!strcmp(name, synth_entries[i].name))
				break;
		if (i < ARRAY_SIZE(synth_entries))
			__set_bit(i, &synth_files_mask);
		else if (*name)
			ret = -EINVAL;
	}
	kfree(list);
	if (ret)
		pr_err("kfe_synth: files=: unknown file in '%s'\n", files);
	return ret;
}

static void synth_remove_all(void)
{
	struct synth_system *sys, *tmp;

	mutex_lock(&synth_lock);
	list_for_each_entry_safe(sys, tmp, &synth_systems, list)
		synth_remove_system(sys);
	mutex_unlock(&synth_lock);
	kfe_remove_dir(synth_root);
}

static int __init synth_init(void)
{
	char system[16], event[16];
	unsigned int s, e;
	int ret;

	ret = synth_parse_files();
	if (ret)
		return ret;
	synth_root = kfe_create_events_root("synth", NULL, synth_root_entries,
					    ARRAY_SIZE(synth_root_entries),
					    NULL);
	if (IS_ERR(synth_root))
		return PTR_ERR(synth_root);

	mutex_lock(&synth_lock);
	for (s = 0, ret = 0; s < nr_systems && !ret; s++) {
		for (e = 0; e < nr_events && !ret; e++) {
			snprintf(system, sizeof(system), "sys%u", s);
			snprintf(event, sizeof(event), "event%u", e);
			ret = synth_add(system, event);
		}
		cond_resched();
	}
	mutex_unlock(&synth_lock);
	if (ret)
		synth_remove_all();
	return ret;
}

static void __exit synth_exit(void)
{
	synth_remove_all();
}

module_init(synth_init);
module_exit(synth_exit);

MODULE_DESCRIPTION("A synthetic event source for kernfs_events");
MODULE_LICENSE("GPL");
