// SPDX-License-Identifier: GPL-2.0
/*
 * Which event directories exist: the mirror of tracing's events tree.
 *
 * events/                   the top level trace array
 *   enable header_page header_event
 *   SYSTEM/                 filter enable (none for ftrace)
 *     EVENT/                enable filter trigger format id hist
 * instances/NAME/events/    the same for each instance
 *
 * Tracing tells us about every instance and event through the callbacks
 * of trace_events_fs_register(), first replaying what exists, then as
 * things come and go, always with event_mutex held. The operations of
 * our files take event_mutex too (inside tracing), while holding a
 * kernfs active reference, and kernfs_remove() waits for the active
 * references to drop: removing a node from a callback would wait for an
 * operation that waits for the callback's caller. Building a node would
 * too, since measuring its size runs its read operation.
 *
 * So the callbacks only record the change and queue a work item; the
 * worker builds and removes the directories, in the order tracing made
 * the changes, holding none of tracing's locks. Between the change and
 * the worker a removed event's files stay visible, and tracing answers
 * their operations with -ENODEV, as it does for an open tracefs file;
 * the reference this layer holds keeps the event file allocated until
 * its directory is gone.
 */
#include <linux/hashtable.h>
#include <linux/kernfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracefs.h>
#include <linux/workqueue.h>

#include "kernfs_events.h"
#include "trace.h"

/* Protects the lists below; taken inside event_mutex. */
static DEFINE_SPINLOCK(kfe_change_lock);
static LIST_HEAD(kfe_changes);
static LIST_HEAD(kfe_instance_list);
static DEFINE_HASHTABLE(kfe_event_hash, 10);

/* Serialises the worker and the teardown at module exit. */
static DEFINE_MUTEX(kfe_trace_lock);
static struct kfe_dir *kfe_instances_dir;

static void kfe_trace_work_fn(struct work_struct *work);
static DECLARE_WORK(kfe_trace_work, kfe_trace_work_fn);

/* Queue @change unless it is already waiting. Under kfe_change_lock. */
static void kfe_queue_change(struct kfe_change *change)
{
	if (list_empty(&change->list))
		list_add_tail(&change->list, &kfe_changes);
}

static void kfe_instance_free(struct kfe_instance *inst)
{
	kfree(inst->name);
	kfree(inst);
}

static void kfe_add_instance(struct trace_array *tr, const char *name)
{
	struct kfe_instance *inst;

	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (inst && name) {
		inst->name = kstrdup(name, GFP_KERNEL);
		if (!inst->name) {
			kfree(inst);
			inst = NULL;
		}
	}
	if (!inst) {
		pr_warn("kernfs_events: no memory to mirror instance %s\n",
			name ?: "(top)");
		return;
	}
	INIT_LIST_HEAD(&inst->change.list);
	INIT_LIST_HEAD(&inst->systems);
	inst->change.instance = true;
	inst->td.tr = tr;

	spin_lock(&kfe_change_lock);
	list_add_tail(&inst->list, &kfe_instance_list);
	kfe_queue_change(&inst->change);
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
}

/* Under kfe_change_lock. */
static struct kfe_instance *kfe_find_instance(struct trace_array *tr)
{
	struct kfe_instance *inst;

	list_for_each_entry(inst, &kfe_instance_list, list)
		if (inst->td.tr == tr)
			return inst;
	return NULL;
}

static void kfe_remove_instance(struct trace_array *tr)
{
	struct kfe_instance *inst;

	spin_lock(&kfe_change_lock);
	inst = kfe_find_instance(tr);
	if (inst) {
		list_del(&inst->list);
		inst->change.removed = true;
		kfe_queue_change(&inst->change);
	}
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
}

static void kfe_event_free(struct kfe_event *ev)
{
	trace_events_fs_put_file(ev->file);
	kfree(ev->system_name);
	kfree(ev->name);
	kfree(ev);
}

static void kfe_add_event(struct trace_array *tr, struct trace_event_file *file,
			  const char *system, const char *event)
{
	struct kfe_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		goto nomem;
	ev->system_name = kstrdup(system, GFP_KERNEL);
	ev->name = kstrdup(event, GFP_KERNEL);
	if (!ev->system_name || !ev->name)
		goto nomem;
	INIT_LIST_HEAD(&ev->change.list);
	ev->file = file;
	trace_events_fs_get_file(file);

	spin_lock(&kfe_change_lock);
	ev->instance = kfe_find_instance(tr);
	if (!ev->instance) {
		/* Its instance could not be mirrored: neither can it. */
		spin_unlock(&kfe_change_lock);
		kfe_event_free(ev);
		return;
	}
	hash_add(kfe_event_hash, &ev->hash, (unsigned long)file);
	kfe_queue_change(&ev->change);
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
	return;

nomem:
	pr_warn("kernfs_events: no memory to mirror event %s/%s\n",
		system, event);
	if (ev) {
		kfree(ev->system_name);
		kfree(ev);
	}
}

static void kfe_remove_event(struct trace_event_file *file)
{
	struct kfe_event *ev;

	spin_lock(&kfe_change_lock);
	hash_for_each_possible(kfe_event_hash, ev, hash, (unsigned long)file) {
		if (ev->file == file) {
			hash_del(&ev->hash);
			ev->change.removed = true;
			kfe_queue_change(&ev->change);
			break;
		}
	}
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
}

static const struct trace_events_fs_ops kfe_trace_ops = {
	.add_instance		= kfe_add_instance,
	.remove_instance	= kfe_remove_instance,
	.add_event		= kfe_add_event,
	.remove_event		= kfe_remove_event,
};

/* The worker's side: build and remove directories. */

static void kfe_build_instance(struct kfe_instance *inst)
{
	struct kfe_dir *events;

	if (inst->name) {
		inst->top = kfe_create_dir(inst->name, kfe_instances_dir,
					   NULL, 0, NULL);
		if (IS_ERR(inst->top))
			goto fail;
		events = kfe_create_dir("events", inst->top,
					kfe_events_entries,
					kfe_nr_events_entries, &inst->td);
	} else {
		events = kfe_create_events_root("events", NULL,
						kfe_events_entries,
						kfe_nr_events_entries,
						&inst->td);
	}
	if (IS_ERR(events))
		goto fail;
	inst->events = events;
	return;

fail:
	pr_warn("kernfs_events: could not mirror the events of %s\n",
		inst->name ?: "the top level");
	kfe_remove_dir(inst->top);
	inst->top = NULL;
}

static void kfe_destroy_instance(struct kfe_instance *inst)
{
	/* Tracing removed every event of the instance first. */
	WARN_ON(!list_empty(&inst->systems));
	kfe_remove_dir(inst->top ?: inst->events);
	kfe_instance_free(inst);
}

static struct kfe_system *kfe_get_system(struct kfe_instance *inst,
					 const char *name)
{
	struct kfe_system *sys;
	struct kfe_dir *dir;

	list_for_each_entry(sys, &inst->systems, list) {
		if (!strcmp(sys->td.system, name)) {
			sys->nr_events++;
			return sys;
		}
	}

	sys = kzalloc(sizeof(*sys), GFP_KERNEL);
	if (!sys)
		return ERR_PTR(-ENOMEM);
	sys->td.tr = inst->td.tr;
	sys->td.system = kstrdup(name, GFP_KERNEL);
	if (!sys->td.system) {
		kfree(sys);
		return ERR_PTR(-ENOMEM);
	}
	dir = kfe_create_dir(name, inst->events, kfe_system_entries,
			     kfe_nr_system_entries, &sys->td);
	if (IS_ERR(dir)) {
		kfree(sys->td.system);
		kfree(sys);
		return ERR_CAST(dir);
	}
	sys->dir = dir;
	sys->nr_events = 1;
	list_add_tail(&sys->list, &inst->systems);
	return sys;
}

static void kfe_put_system(struct kfe_system *sys)
{
	if (--sys->nr_events)
		return;
	list_del(&sys->list);
	kfe_remove_dir(sys->dir);
	kfree(sys->td.system);
	kfree(sys);
}

static void kfe_build_event(struct kfe_event *ev)
{
	struct kfe_system *sys;
	struct kfe_dir *dir;

	if (!ev->instance->events)
		return;
	sys = kfe_get_system(ev->instance, ev->system_name);
	if (IS_ERR(sys))
		goto fail;
	dir = kfe_create_dir(ev->name, sys->dir, kfe_event_entries,
			     kfe_nr_event_entries, ev);
	if (IS_ERR(dir)) {
		kfe_put_system(sys);
		goto fail;
	}
	ev->system = sys;
	ev->dir = dir;
	return;

fail:
	pr_warn("kernfs_events: could not mirror event %s/%s\n",
		ev->system_name, ev->name);
}

static void kfe_destroy_event(struct kfe_event *ev)
{
	if (ev->dir) {
		kfe_remove_dir(ev->dir);
		kfe_put_system(ev->system);
	}
	kfe_event_free(ev);
}

/* Apply one change; a removal after the build, or instead of it. */
static void kfe_apply_change(struct kfe_change *change, bool removed)
{
	struct kfe_instance *inst;
	struct kfe_event *ev;

	if (change->instance) {
		inst = container_of(change, struct kfe_instance, change);
		if (removed)
			kfe_destroy_instance(inst);
		else
			kfe_build_instance(inst);
	} else {
		ev = container_of(change, struct kfe_event, change);
		if (removed)
			kfe_destroy_event(ev);
		else
			kfe_build_event(ev);
	}
}

static void kfe_trace_work_fn(struct work_struct *work)
{
	struct kfe_change *change;
	bool removed;

	mutex_lock(&kfe_trace_lock);
	for (;;) {
		spin_lock(&kfe_change_lock);
		change = list_first_entry_or_null(&kfe_changes,
						  struct kfe_change, list);
		if (change) {
			list_del_init(&change->list);
			removed = change->removed;
		}
		spin_unlock(&kfe_change_lock);
		if (!change)
			break;
		kfe_apply_change(change, removed);
	}
	mutex_unlock(&kfe_trace_lock);
}

/**
 * kfe_trace_init - mirror the events tree of every trace array
 *
 * Creates instances/ and registers with tracing, which replays every
 * instance and event; the directories appear as the worker builds them.
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int kfe_trace_init(void)
{
	int ret;

	kfe_instances_dir = kfe_create_events_root("instances", NULL, NULL, 0,
						   NULL);
	if (IS_ERR(kfe_instances_dir))
		return PTR_ERR(kfe_instances_dir);

	ret = trace_events_fs_register(&kfe_trace_ops);
	if (ret)
		kfe_remove_dir(kfe_instances_dir);
	return ret;
}

/**
 * kfe_trace_exit - stop mirroring and remove every mirrored directory
 *
 * After unregistering no callback runs; every event and instance still
 * mirrored is then removed as if tracing had removed it, events first,
 * and the event files are released.
 */
void kfe_trace_exit(void)
{
	struct kfe_instance *inst, *tmp;
	struct hlist_node *next;
	struct kfe_event *ev;
	int bkt;

	trace_events_fs_unregister(&kfe_trace_ops);

	spin_lock(&kfe_change_lock);
	hash_for_each_safe(kfe_event_hash, bkt, next, ev, hash) {
		hash_del(&ev->hash);
		ev->change.removed = true;
		kfe_queue_change(&ev->change);
	}
	list_for_each_entry_safe(inst, tmp, &kfe_instance_list, list) {
		list_del(&inst->list);
		inst->change.removed = true;
		kfe_queue_change(&inst->change);
	}
	spin_unlock(&kfe_change_lock);

	flush_work(&kfe_trace_work);
	kfe_trace_work_fn(&kfe_trace_work);
	kfe_remove_dir(kfe_instances_dir);
}
