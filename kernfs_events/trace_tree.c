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
 * worker builds and removes the directories holding none of tracing's
 * locks. The task that made the change waits for the worker before it
 * returns to user space (kfe_trace_sync(), tracing's ->sync()), so that
 * when a write to kprobe_events or an instance's mkdir returns, the
 * mirror shows what it did. Until the worker removes a removed event's
 * files, tracing answers their operations with -ENODEV, as it does for
 * an open tracefs file, without looking at the event's call, which may
 * be gone; the reference this layer holds keeps the event file allocated
 * until its directory is gone.
 *
 * The directories are lazy (kfe_create_lazy_dir()): an events directory
 * gets its system directories, a system directory its event directories
 * and an event directory its files when someone first looks into them.
 * Until then an event costs one small &struct kfe_event and no kernfs
 * node. kfe_mirror_lock orders the populate callbacks against the worker,
 * so that an event's directory is made exactly once, by whichever comes
 * first, and removed by the worker.
 *
 * Memory reclaim gives back the directories nobody uses (kfe_dir_reclaim()
 * from kfe_shrinker), from the bottom up: an event's files, a system's
 * event directories, an events directory's system directories. Each
 * keeps its inode numbers, so that a path has one number for as long as
 * its object exists: every instance has a range of the numbers that
 * kernfs leaves to its owner, with a block per directory, which its
 * files share: block 0 for the events directory, an event's block by its
 * event type, which tracing keeps unique, and a system's by an index the
 * instance gives it.
 */
#include <linux/hashtable.h>
#include <linux/kernfs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracefs.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "internal.h"
#include "kernfs_events.h"
#include "trace.h"

/*
 * Protects the lists and counts below, and moves of a kfe_event between
 * them; taken inside event_mutex. An event's name may be read from its
 * event call only under this lock, while the event is pending, live or
 * waiting for a retry.
 */
static DEFINE_SPINLOCK(kfe_change_lock);
static LIST_HEAD(kfe_instance_changes);
static LIST_HEAD(kfe_instance_list);
static DEFINE_HASHTABLE(kfe_event_hash, 10);	/* live events, by file */
static HLIST_HEAD(kfe_pending);			/* added, not yet mirrored */
static HLIST_HEAD(kfe_dead);			/* removed by tracing */

/*
 * Builds the worker could not make for want of memory: instances (on
 * their change entry) and events whose directory should exist. The next
 * run of the worker tries them again; one runs at the next change, and
 * kfe_retry_work starts one after kfe_retry_delay if nothing changes.
 */
static LIST_HEAD(kfe_instance_retry);
static HLIST_HEAD(kfe_event_retry);
#define KFE_RETRY_MIN	(HZ / 10)
#define KFE_RETRY_MAX	(8 * HZ)
static unsigned long kfe_retry_delay;		/* under kfe_trace_lock */
static bool kfe_stopping;			/* under kfe_trace_lock */

/*
 * Protects which directories are built: instance->populated, the dir and
 * populated fields of systems and kfe_event->dir. Held while building,
 * never while removing (removal waits for populate callbacks, which take
 * it). Nothing is freed while it is held without being unlinked first.
 */
static DEFINE_MUTEX(kfe_mirror_lock);

/* Serialises the worker and the teardown at module exit. */
static DEFINE_MUTEX(kfe_trace_lock);
static struct kfe_dir *kfe_instances_dir;
static struct kmem_cache *kfe_event_cache;

/*
 * The task replaying the trace arrays and events at load, where a record
 * that cannot be allocated fails the load: kfe_record_failed says so.
 */
static struct task_struct *kfe_replay_task;
static bool kfe_record_failed;

/*
 * An instance's range of inode numbers: a block per event type, the
 * events directory's in place of type 0, then a block per system. 1,024
 * ranges fill the numbers kernfs leaves to its owner.
 */
#define KFE_INO_TYPES		(TRACE_EVENT_TYPE_MAX + 1)
#define KFE_INO_SYSTEMS		(U16_MAX + 1)	/* fewer systems than types */
#define KFE_INO_RANGE		((KFE_INO_TYPES + KFE_INO_SYSTEMS) * \
				 KERNFS_LAZY_INO_BLOCK)
#define KFE_INO_RANGES		((U32_MAX - KERNFS_LAZY_INO_MIN + 1ULL) / \
				 KFE_INO_RANGE)
/*
 * Ranges and systems' blocks are given in turn, not lowest first: the
 * number of a removed directory stays taken while something holds it.
 */
static DEFINE_XARRAY_ALLOC(kfe_ino_ranges);
static u32 kfe_next_ino_range;

static struct shrinker *kfe_shrinker;

static void kfe_trace_work_fn(struct work_struct *work);
static DECLARE_WORK(kfe_trace_work, kfe_trace_work_fn);

static void kfe_retry_fn(struct work_struct *work)
{
	schedule_work(&kfe_trace_work);
}

static DECLARE_DELAYED_WORK(kfe_retry_work, kfe_retry_fn);

/*
 * The allocation flags of a callback's record. Tracing's operation has
 * already succeeded when the callback runs and cannot hear of a failure,
 * so after the load a record must not fail: it is a few dozen bytes,
 * which only fault injection or an OOM-killed task could see fail.
 * During the replay a failure fails the load instead.
 */
static gfp_t kfe_record_gfp(void)
{
	if (current == READ_ONCE(kfe_replay_task))
		return GFP_KERNEL;
	return GFP_KERNEL | __GFP_NOFAIL;
}

static void kfe_instance_free(struct kfe_instance *inst)
{
	if (inst->ino_base)
		xa_erase(&kfe_ino_ranges,
			 (inst->ino_base - KERNFS_LAZY_INO_MIN) / KFE_INO_RANGE);
	xa_destroy(&inst->system_inos);
	kfree(inst->name);
	kfree(inst);
}

static void kfe_add_instance(struct trace_array *tr, const char *name)
{
	gfp_t gfp = kfe_record_gfp();
	struct kfe_instance *inst;

	inst = kzalloc(sizeof(*inst), gfp);
	if (inst && name) {
		inst->name = kstrdup(name, gfp);
		if (!inst->name) {
			kfree(inst);
			inst = NULL;
		}
	}
	if (!inst) {
		kfe_record_failed = true;
		pr_warn("kernfs_events: no memory to mirror instance %s\n",
			name ?: "(top)");
		return;
	}
	INIT_LIST_HEAD(&inst->systems);
	xa_init_flags(&inst->system_inos, XA_FLAGS_ALLOC);
	inst->tr = tr;
	inst->td.instance = inst->name;

	spin_lock(&kfe_change_lock);
	list_add_tail(&inst->list, &kfe_instance_list);
	list_add_tail(&inst->change, &kfe_instance_changes);
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
}

/* Under kfe_change_lock. */
static struct kfe_instance *kfe_find_instance(struct trace_array *tr)
{
	struct kfe_instance *inst;

	lockdep_assert_held(&kfe_change_lock);
	list_for_each_entry(inst, &kfe_instance_list, list)
		if (inst->tr == tr)
			return inst;
	return NULL;
}

/* Under kfe_change_lock; the caller has moved its events to kfe_dead. */
static void kfe_queue_instance_removal(struct kfe_instance *inst)
{
	lockdep_assert_held(&kfe_change_lock);

	list_del(&inst->list);
	inst->removed = true;
	/* Not built yet: the build and the removal are one change. */
	if (list_empty(&inst->change))
		list_add_tail(&inst->change, &kfe_instance_changes);
}

static void kfe_remove_instance(struct trace_array *tr)
{
	struct kfe_instance *inst;

	spin_lock(&kfe_change_lock);
	inst = kfe_find_instance(tr);
	if (inst)
		kfe_queue_instance_removal(inst);
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
}

/* Under kfe_change_lock. */
static struct kfe_system *kfe_find_system(struct kfe_instance *inst,
					  const char *name)
{
	struct kfe_system *sys;

	lockdep_assert_held(&kfe_change_lock);
	list_for_each_entry(sys, &inst->systems, list)
		if (!strcmp(sys->td.system, name))
			return sys;
	return NULL;
}

static void kfe_system_free(struct kfe_system *sys)
{
	if (sys->ino_index >= 0)
		xa_erase(&sys->instance->system_inos, sys->ino_index);
	kfree(sys->td.system);
	kfree(sys);
}

static struct kfe_system *kfe_system_alloc(struct kfe_instance *inst,
					   const char *name, gfp_t gfp)
{
	struct kfe_system *sys;

	sys = kzalloc(sizeof(*sys), gfp);
	if (!sys)
		return NULL;
	sys->ino_index = -1;
	sys->td.instance = inst->name;
	sys->td.system = kstrdup(name, gfp);
	if (!sys->td.system) {
		kfree(sys);
		return NULL;
	}
	return sys;
}

static void kfe_add_event(struct trace_array *tr, struct trace_event_file *file,
			  const char *system, const char *event)
{
	gfp_t gfp = kfe_record_gfp();
	struct kfe_instance *inst;
	struct kfe_system *sys;
	struct kfe_event *ev;

	/*
	 * Callbacks are serialised by event_mutex, and only they add and
	 * remove instances: INST stays valid here.
	 */
	spin_lock(&kfe_change_lock);
	inst = kfe_find_instance(tr);
	spin_unlock(&kfe_change_lock);
	/* Its instance could not be mirrored: neither can it. */
	if (!inst)
		return;

	ev = kmem_cache_zalloc(kfe_event_cache, gfp);
	if (!ev)
		goto nomem;
	ev->file = file;

	spin_lock(&kfe_change_lock);
	sys = kfe_find_system(inst, system);
	if (!sys) {
		spin_unlock(&kfe_change_lock);
		sys = kfe_system_alloc(inst, system, gfp);
		if (!sys)
			goto nomem;
		/* Only callbacks add systems: there is still none. */
		spin_lock(&kfe_change_lock);
		sys->instance = inst;
		list_add_tail(&sys->list, &inst->systems);
	}
	sys->nr_events++;
	sys->nr_refs++;
	ev->system = sys;
	trace_events_fs_get_file(file);
	hlist_add_head(&ev->node, &kfe_pending);
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
	return;

nomem:
	kfe_record_failed = true;
	pr_warn("kernfs_events: no memory to mirror event %s/%s of instance %s\n",
		system, event, inst->name ?: "(top)");
	if (ev)
		kmem_cache_free(kfe_event_cache, ev);
}

/* Under kfe_change_lock: forget a live or pending event. */
static void kfe_kill_event(struct kfe_event *ev)
{
	lockdep_assert_held(&kfe_change_lock);

	hlist_del(&ev->node);
	hlist_add_head(&ev->node, &kfe_dead);
	ev->system->nr_events--;
}

static void kfe_remove_event(struct trace_event_file *file)
{
	struct kfe_event *ev;

	spin_lock(&kfe_change_lock);
	hash_for_each_possible(kfe_event_hash, ev, node, (unsigned long)file)
		if (ev->file == file)
			goto found;
	hlist_for_each_entry(ev, &kfe_pending, node)
		if (ev->file == file)
			goto found;
	hlist_for_each_entry(ev, &kfe_event_retry, node)
		if (ev->file == file)
			goto found;
	spin_unlock(&kfe_change_lock);
	return;
found:
	kfe_kill_event(ev);
	spin_unlock(&kfe_change_lock);
	schedule_work(&kfe_trace_work);
}

/* Called with no lock held: the worker has applied every recorded change. */
static void kfe_trace_sync(void)
{
	flush_work(&kfe_trace_work);
}

static const struct trace_events_fs_ops kfe_trace_ops = {
	.add_instance		= kfe_add_instance,
	.remove_instance	= kfe_remove_instance,
	.add_event		= kfe_add_event,
	.remove_event		= kfe_remove_event,
	.sync			= kfe_trace_sync,
};

/* Building the directories of systems and events: under kfe_mirror_lock. */

/*
 * Under kfe_change_lock, while tracing has @ev's event call: the number of
 * its directory, or 0 for one from kernfs.
 */
static u32 kfe_event_ino(struct kfe_event *ev)
{
	u32 base = ev->system->instance->ino_base;

	lockdep_assert_held(&kfe_change_lock);
	if (!base)
		return 0;
	return base + ev->file->event_call->event.type * KERNFS_LAZY_INO_BLOCK;
}

static int kfe_build_event(struct kfe_event *ev, struct kfe_dir *parent,
			   const char *name, u32 ino)
{
	struct kfe_dir *dir;

	lockdep_assert_held(&kfe_mirror_lock);
	dir = kfe_create_lazy_dir(name, parent, kfe_event_files.entries,
				  kfe_event_files.nr, ev, NULL, ino);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	ev->dir = dir;
	return 0;
}

/*
 * The live events of @sys that have no directory yet, and their names,
 * copied while the event calls cannot go away.
 */
struct kfe_event_batch {
	int			nr;
	struct kfe_event_ref {
		struct kfe_event	*ev;
		u32			ino;
	}			*evs;
	char			*names;		/* nr strings, back to back */
};

static int kfe_collect_events(struct kfe_system *sys,
			      struct kfe_event_batch *b)
{
	size_t want_nr = 0, want_len = 0, nr, len, size;
	struct kfe_event *ev;
	const char *name;
	int bkt;

	for (;;) {
		b->evs = kvmalloc_array(want_nr ?: 1, sizeof(*b->evs),
					GFP_KERNEL);
		b->names = kvmalloc(want_len ?: 1, GFP_KERNEL);
		if (!b->evs || !b->names)
			return -ENOMEM;

		nr = 0;
		len = 0;
		spin_lock(&kfe_change_lock);
		hash_for_each(kfe_event_hash, bkt, ev, node) {
			if (ev->system != sys || ev->dir)
				continue;
			name = trace_event_name(ev->file->event_call);
			size = strlen(name) + 1;
			if (nr < want_nr && len + size <= want_len) {
				b->evs[nr].ev = ev;
				b->evs[nr].ino = kfe_event_ino(ev);
				memcpy(b->names + len, name, size);
			}
			nr++;
			len += size;
		}
		spin_unlock(&kfe_change_lock);
		if (nr <= want_nr && len <= want_len)
			break;
		kvfree(b->evs);
		kvfree(b->names);
		want_nr = nr;
		want_len = len;
	}
	b->nr = nr;
	return 0;
}

/* subdirs of a system directory: a lazy directory per event. */
static int kfe_system_subdirs(struct kfe_dir *dir, void *data)
{
	struct kfe_system *sys = container_of(data, struct kfe_system, td);
	struct kfe_event_batch b = { };
	const char *name;
	int i, ret;

	mutex_lock(&kfe_mirror_lock);
	ret = -ENOENT;
	if (sys->dir != dir)		/* being removed */
		goto out;
	ret = kfe_collect_events(sys, &b);
	for (i = 0, name = b.names; !ret && i < b.nr; i++) {
		ret = kfe_build_event(b.evs[i].ev, dir, name, b.evs[i].ino);
		name += strlen(name) + 1;
	}
	if (ret) {
		/* kfe_dir_populate() removes the directories made. */
		while (i--)
			b.evs[i].ev->dir = NULL;
	} else {
		sys->populated = true;
	}
out:
	mutex_unlock(&kfe_mirror_lock);
	kvfree(b.evs);
	kvfree(b.names);
	return ret;
}

/* A system directory has a directory per event tracing has in it. */
static unsigned int kfe_system_nr_subdirs(void *data)
{
	struct kfe_system *sys = container_of(data, struct kfe_system, td);

	return READ_ONCE(sys->nr_events);
}

/* Reclaim freed the event directories of a system directory. */
static void kfe_system_reclaimed(struct kfe_dir *dir, void *data)
{
	struct kfe_system *sys = container_of(data, struct kfe_system, td);
	struct kfe_event *ev;
	int bkt;

	lockdep_assert_held(&kfe_mirror_lock);
	sys->populated = false;
	/* Those of events tracing removed too, which the worker reaps. */
	spin_lock(&kfe_change_lock);
	hash_for_each(kfe_event_hash, bkt, ev, node)
		if (ev->system == sys)
			ev->dir = NULL;
	hlist_for_each_entry(ev, &kfe_dead, node)
		if (ev->system == sys)
			ev->dir = NULL;
	spin_unlock(&kfe_change_lock);
}

static const struct kfe_subdirs kfe_system_dirs = {
	.create		= kfe_system_subdirs,
	.count		= kfe_system_nr_subdirs,
	.reclaimed	= kfe_system_reclaimed,
};

static int kfe_build_system(struct kfe_system *sys, struct kfe_dir *parent)
{
	struct kfe_instance *inst = sys->instance;
	u32 base = inst->ino_base, ino = 0, index;
	struct kfe_dir *dir;
	int ret;

	lockdep_assert_held(&kfe_mirror_lock);
	/* Fewer systems than event types: only memory can run out. */
	if (base && sys->ino_index < 0) {
		ret = xa_alloc_cyclic(&inst->system_inos, &index, sys,
				      XA_LIMIT(0, KFE_INO_SYSTEMS - 1),
				      &inst->next_system_ino, GFP_KERNEL);
		if (ret < 0)
			return ret;
		sys->ino_index = index;
	}
	if (base)
		ino = base + (KFE_INO_TYPES + sys->ino_index) *
			     KERNFS_LAZY_INO_BLOCK;
	dir = kfe_create_lazy_dir(sys->td.system, parent, kfe_system_files.entries,
				  kfe_system_files.nr, &sys->td,
				  &kfe_system_dirs, ino);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	sys->dir = dir;
	return 0;
}

/* A system of @inst with events and no directory. */
static struct kfe_system *kfe_next_unbuilt_system(struct kfe_instance *inst)
{
	struct kfe_system *sys, *found = NULL;

	spin_lock(&kfe_change_lock);
	list_for_each_entry(sys, &inst->systems, list) {
		if (sys->nr_events && !sys->dir) {
			found = sys;
			break;
		}
	}
	spin_unlock(&kfe_change_lock);
	return found;
}

/* subdirs of an events directory: a lazy directory per system. */
static int kfe_events_subdirs(struct kfe_dir *dir, void *data)
{
	struct kfe_instance *inst = container_of(data, struct kfe_instance, td);
	struct kfe_system *sys;
	int ret = 0;

	mutex_lock(&kfe_mirror_lock);
	while (!ret && (sys = kfe_next_unbuilt_system(inst)))
		ret = kfe_build_system(sys, dir);
	if (ret) {
		/* kfe_dir_populate() removes the directories made. */
		spin_lock(&kfe_change_lock);
		list_for_each_entry(sys, &inst->systems, list)
			sys->dir = NULL;
		spin_unlock(&kfe_change_lock);
	} else {
		inst->populated = true;
	}
	mutex_unlock(&kfe_mirror_lock);
	return ret;
}

/* An events directory has a directory per system with events. */
static unsigned int kfe_events_nr_subdirs(void *data)
{
	struct kfe_instance *inst = container_of(data, struct kfe_instance, td);
	struct kfe_system *sys;
	unsigned int nr = 0;

	spin_lock(&kfe_change_lock);
	list_for_each_entry(sys, &inst->systems, list)
		nr += !!sys->nr_events;
	spin_unlock(&kfe_change_lock);
	return nr;
}

/* Reclaim freed the system directories of an events directory. */
static void kfe_events_reclaimed(struct kfe_dir *dir, void *data)
{
	struct kfe_instance *inst = container_of(data, struct kfe_instance, td);
	struct kfe_system *sys;

	lockdep_assert_held(&kfe_mirror_lock);
	inst->populated = false;
	/* Their event directories went before them. */
	spin_lock(&kfe_change_lock);
	list_for_each_entry(sys, &inst->systems, list)
		sys->dir = NULL;
	spin_unlock(&kfe_change_lock);
}

static const struct kfe_subdirs kfe_events_dirs = {
	.create		= kfe_events_subdirs,
	.count		= kfe_events_nr_subdirs,
	.reclaimed	= kfe_events_reclaimed,
};

/* The worker's side. */

/*
 * Give @inst a range of inode numbers, unless every range is taken: its
 * directories then get numbers from kernfs, and reclaim leaves them be.
 */
static void kfe_number_instance(struct kfe_instance *inst)
{
	u32 range;

	if (inst->ino_base)
		return;
	if (xa_alloc_cyclic(&kfe_ino_ranges, &range, inst,
			    XA_LIMIT(0, KFE_INO_RANGES - 1),
			    &kfe_next_ino_range, GFP_KERNEL) >= 0)
		inst->ino_base = KERNFS_LAZY_INO_MIN + range * KFE_INO_RANGE;
}

static void kfe_build_instance(struct kfe_instance *inst)
{
	struct kfe_dir *events;

	kfe_number_instance(inst);
	if (inst->name) {
		inst->top = kfe_create_dir(inst->name, kfe_instances_dir,
					   NULL, 0, NULL);
		if (IS_ERR(inst->top))
			goto fail;
		events = kfe_create_lazy_dir("events", inst->top,
					     kfe_events_files.entries,
					     kfe_events_files.nr, &inst->td,
					     &kfe_events_dirs, inst->ino_base);
	} else {
		events = kfe_create_lazy_events_root("events", NULL,
						     kfe_events_files.entries,
						     kfe_events_files.nr,
						     &inst->td,
						     &kfe_events_dirs,
						     inst->ino_base);
	}
	if (IS_ERR(events))
		goto fail;
	inst->events = events;
	return;

fail:
	pr_warn("kernfs_events: could not mirror the events of %s yet\n",
		inst->name ?: "the top level");
	kfe_remove_dir(inst->top);
	inst->top = NULL;
	/* Try again, unless tracing has queued its removal meanwhile. */
	spin_lock(&kfe_change_lock);
	if (list_empty(&inst->change))
		list_add_tail(&inst->change, &kfe_instance_retry);
	spin_unlock(&kfe_change_lock);
}

static void kfe_destroy_instance(struct kfe_instance *inst)
{
	/* Tracing removed every event of the instance first. */
	WARN_ON(!list_empty(&inst->systems));
	kfe_remove_dir(inst->top ?: inst->events);
	kfe_instance_free(inst);
}

/* Build or remove one instance, in the order tracing made them. */
static bool kfe_apply_instance_change(void)
{
	struct kfe_instance *inst;
	bool removed = false;

	spin_lock(&kfe_change_lock);
	inst = list_first_entry_or_null(&kfe_instance_changes,
					struct kfe_instance, change);
	if (inst) {
		list_del_init(&inst->change);
		removed = inst->removed;
	}
	spin_unlock(&kfe_change_lock);
	if (!inst)
		return false;

	/* A removal during the build queues itself again. */
	if (removed)
		kfe_destroy_instance(inst);
	else
		kfe_build_instance(inst);
	return true;
}

/* Remove the directory of one event tracing removed, and forget it. */
static bool kfe_reap_dead_event(void)
{
	struct kfe_dir *dir, *sys_dir = NULL;
	struct kfe_system *sys;
	struct kfe_event *ev;
	bool last;

	mutex_lock(&kfe_mirror_lock);
	spin_lock(&kfe_change_lock);
	ev = hlist_entry_safe(kfe_dead.first, struct kfe_event, node);
	if (ev) {
		hlist_del(&ev->node);
		sys = ev->system;
		last = !--sys->nr_refs && !sys->nr_events;
		if (last)
			list_del(&sys->list);
	}
	spin_unlock(&kfe_change_lock);
	if (!ev) {
		mutex_unlock(&kfe_mirror_lock);
		return false;
	}
	dir = ev->dir;
	ev->dir = NULL;
	if (last) {
		sys_dir = sys->dir;
		sys->dir = NULL;
	}
	mutex_unlock(&kfe_mirror_lock);

	kfe_remove_dir(dir);
	kfe_remove_dir(sys_dir);
	if (last)
		kfe_system_free(sys);
	trace_events_fs_put_file(ev->file);
	kmem_cache_free(kfe_event_cache, ev);
	return true;
}

/* Under kfe_change_lock: whether @ev is in the hash of live events. */
static bool kfe_event_is_live(struct kfe_event *ev)
{
	struct kfe_event *pos;

	lockdep_assert_held(&kfe_change_lock);
	hash_for_each_possible(kfe_event_hash, pos, node,
			       (unsigned long)ev->file)
		if (pos == ev)
			return true;
	return false;
}

/* Make one added event live, and its directories if they are visible. */
static bool kfe_mirror_pending_event(void)
{
	char name[NAME_MAX + 1];
	struct kfe_instance *inst;
	struct kfe_system *sys;
	struct kfe_event *ev;
	u32 ino = 0;
	int ret = 0;

	mutex_lock(&kfe_mirror_lock);
	spin_lock(&kfe_change_lock);
	ev = hlist_entry_safe(kfe_pending.first, struct kfe_event, node);
	if (ev) {
		hlist_del(&ev->node);
		hash_add(kfe_event_hash, &ev->node, (unsigned long)ev->file);
		strscpy(name, trace_event_name(ev->file->event_call));
		ino = kfe_event_ino(ev);
	}
	spin_unlock(&kfe_change_lock);
	if (!ev) {
		mutex_unlock(&kfe_mirror_lock);
		return false;
	}

	sys = ev->system;
	inst = sys->instance;
	if (inst->populated && !sys->dir)
		ret = kfe_build_system(sys, inst->events);
	else if (sys->populated && !ev->dir)
		ret = kfe_build_event(ev, sys->dir, name, ino);
	if (ret) {
		/* Try again, unless tracing has removed it meanwhile. */
		spin_lock(&kfe_change_lock);
		if (kfe_event_is_live(ev)) {
			hash_del(&ev->node);
			hlist_add_head(&ev->node, &kfe_event_retry);
		}
		spin_unlock(&kfe_change_lock);
	}
	mutex_unlock(&kfe_mirror_lock);

	if (ret)
		pr_warn("kernfs_events: could not mirror event %s/%s yet: %d\n",
			sys->td.system, name, ret);
	return true;
}

/* Give the builds that failed to the worker again. */
static void kfe_requeue_retries(void)
{
	struct hlist_node *next;
	struct kfe_event *ev;

	spin_lock(&kfe_change_lock);
	list_splice_init(&kfe_instance_retry, &kfe_instance_changes);
	hlist_for_each_entry_safe(ev, next, &kfe_event_retry, node) {
		hlist_del(&ev->node);
		hlist_add_head(&ev->node, &kfe_pending);
	}
	spin_unlock(&kfe_change_lock);
}

/*
 * After a run of the worker: if a build failed, run again later, each
 * time later while they keep failing.
 */
static void kfe_schedule_retry(void)
{
	bool failed;

	lockdep_assert_held(&kfe_trace_lock);
	spin_lock(&kfe_change_lock);
	failed = !list_empty(&kfe_instance_retry) ||
		 !hlist_empty(&kfe_event_retry);
	spin_unlock(&kfe_change_lock);
	if (!failed || kfe_stopping) {
		kfe_retry_delay = 0;
		return;
	}
	kfe_retry_delay = clamp(kfe_retry_delay * 2, KFE_RETRY_MIN,
				KFE_RETRY_MAX);
	mod_delayed_work(system_wq, &kfe_retry_work, kfe_retry_delay);
}

static void kfe_trace_work_fn(struct work_struct *work)
{
	mutex_lock(&kfe_trace_lock);
	kfe_requeue_retries();
	/* Removals first, so that a name is free before it is reused. */
	while (kfe_reap_dead_event() || kfe_apply_instance_change() ||
	       kfe_mirror_pending_event())
		;
	kfe_schedule_retry();
	mutex_unlock(&kfe_trace_lock);
}

/* Under kfe_trace_lock: the @n-th instance, which only the worker frees. */
static struct kfe_instance *kfe_nth_instance(int n)
{
	struct kfe_instance *inst, *found = NULL;

	lockdep_assert_held(&kfe_trace_lock);
	spin_lock(&kfe_change_lock);
	list_for_each_entry(inst, &kfe_instance_list, list)
		if (!n--) {
			found = inst;
			break;
		}
	spin_unlock(&kfe_change_lock);
	return found;
}

static unsigned long kfe_shrinker_count(struct shrinker *shrinker,
					struct shrink_control *sc)
{
	return kfe_dir_nr_populated() ?: SHRINK_EMPTY;
}

/*
 * Give back the directories nobody uses in every instance that keeps
 * its inode numbers. The worker and the populate callbacks allocate
 * under the two mutexes: reclaim must not wait for them.
 */
static unsigned long kfe_shrinker_scan(struct shrinker *shrinker,
				       struct shrink_control *sc)
{
	struct kfe_instance *inst;
	unsigned long freed = 0;
	int i;

	if (!mutex_trylock(&kfe_trace_lock))
		return SHRINK_STOP;
	if (!mutex_trylock(&kfe_mirror_lock)) {
		mutex_unlock(&kfe_trace_lock);
		return SHRINK_STOP;
	}
	for (i = 0; (inst = kfe_nth_instance(i)); i++)
		if (inst->events && inst->ino_base)
			freed += kfe_dir_reclaim(inst->events);
	mutex_unlock(&kfe_mirror_lock);
	mutex_unlock(&kfe_trace_lock);
	return freed;
}

/**
 * kfe_trace_init - mirror the events tree of every trace array
 *
 * Creates instances/ and registers with tracing, which replays every
 * instance and event; the directories appear as the worker builds them.
 * An instance or event that cannot be recorded fails the whole call.
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int kfe_trace_init(void)
{
	int ret;

	kfe_event_cache = KMEM_CACHE(kfe_event, 0);
	if (!kfe_event_cache)
		return -ENOMEM;
	kfe_shrinker = shrinker_alloc(0, "kernfs_events");
	if (!kfe_shrinker) {
		kmem_cache_destroy(kfe_event_cache);
		return -ENOMEM;
	}
	kfe_shrinker->count_objects = kfe_shrinker_count;
	kfe_shrinker->scan_objects = kfe_shrinker_scan;

	kfe_instances_dir = kfe_create_events_root("instances", NULL, NULL, 0,
						   NULL);
	if (IS_ERR(kfe_instances_dir)) {
		ret = PTR_ERR(kfe_instances_dir);
		goto out_cache;
	}

	WRITE_ONCE(kfe_replay_task, current);
	ret = trace_events_fs_register(&kfe_trace_ops);
	WRITE_ONCE(kfe_replay_task, NULL);
	if (ret)
		goto out_dir;
	/*
	 * The replay ran the callbacks in this task. Tracing cannot hear of
	 * their failures: fail the load rather than mirror part of the tree.
	 */
	if (kfe_record_failed) {
		kfe_trace_exit();
		return -ENOMEM;
	}
	shrinker_register(kfe_shrinker);
	return 0;

out_dir:
	kfe_remove_dir(kfe_instances_dir);
out_cache:
	shrinker_free(kfe_shrinker);
	kmem_cache_destroy(kfe_event_cache);
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

	/* Waits for a scan in progress; none starts after it. */
	shrinker_free(kfe_shrinker);
	trace_events_fs_unregister(&kfe_trace_ops);

	spin_lock(&kfe_change_lock);
	hash_for_each_safe(kfe_event_hash, bkt, next, ev, node)
		kfe_kill_event(ev);
	hlist_for_each_entry_safe(ev, next, &kfe_pending, node)
		kfe_kill_event(ev);
	hlist_for_each_entry_safe(ev, next, &kfe_event_retry, node)
		kfe_kill_event(ev);
	list_for_each_entry_safe(inst, tmp, &kfe_instance_list, list)
		kfe_queue_instance_removal(inst);
	spin_unlock(&kfe_change_lock);

	/* No retry starts the worker again, and the last run arms none. */
	mutex_lock(&kfe_trace_lock);
	kfe_stopping = true;
	mutex_unlock(&kfe_trace_lock);
	cancel_delayed_work_sync(&kfe_retry_work);
	flush_work(&kfe_trace_work);
	kfe_trace_work_fn(&kfe_trace_work);
	kfe_remove_dir(kfe_instances_dir);
	kmem_cache_destroy(kfe_event_cache);
}
