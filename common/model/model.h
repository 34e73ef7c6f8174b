/* model.h - private to the model (common/model/): the profile's layout, and the node-level
 * calls bulk building rests on, whose invariants (which nodes the child table indexes) only
 * the model keeps. */
#ifndef FK_MODEL_H
#define FK_MODEL_H

#include "internal.h"

struct name_ent {
	uint64_t off;   /* into str */
	uint32_t len;
	uint32_t hash;  /* low 32 bits of fk_hash: cheap reject before memcmp */
};

struct child_ent {
	uint64_t key;   /* parent << 32 | frame */
	uint32_t node;  /* 0 = empty slot (node 0 is the root, never a child) */
	uint32_t pad;
};

struct fk_profile {
	unsigned flags;
	unsigned ncols;
	char *str;
	size_t str_len, str_cap;
	struct name_ent *names;
	size_t nnames, names_cap;
	uint64_t *name_tab;     /* high 32 bits of the name's hash << 32 | id + 1; 0 = empty;
				 * size is a power of two (indexed by the low bits) */
	size_t name_tab_mask;
	fk_node *nodes;
	size_t nnodes, nodes_cap;
	bool nodes_mapped;      /* nodes is an mmap (big arrays grow by mremap, never copied) */
	struct child_ent *child_tab;
	size_t child_tab_mask;
	size_t nindexed;        /* nodes [0, nindexed) are in child_tab (see child_unindexed) */
	fk_sample *samples;
	size_t nsamples, samples_cap;
	uint32_t *scratch;      /* frame ids for add_folded */
	size_t scratch_cap;
	char *unit;             /* what the counts are (NULL = unknown) */
	int kind;               /* enum fk_profile_kind */
};

/* Room for n more nodes, with every node already there indexed. */
FK_HIDDEN int fk_profile_reserve_nodes(fk_profile *p, size_t n);
/* Room for n more nodes, without indexing anything (see fk_profile_child_unindexed). */
FK_HIDDEN int fk_profile_grow_nodes(fk_profile *p, size_t n);
/* fk_profile_child for a bulk build whose caller knows that no node added since the last
 * indexed lookup is the child: new nodes stay out of the child table until a lookup needs it. */
FK_HIDDEN int64_t fk_profile_child_unindexed(fk_profile *p, uint32_t parent, uint32_t frame);
/* Append a chain of n new nodes, frames[0] a new child of parent, each next one the only
 * child of the one before; their indexes into nodes_out. No lookup: the caller knows
 * none of them exists. 0 or a negative error. */
FK_HIDDEN int fk_profile_append_chain(fk_profile *p, uint32_t parent, const uint32_t *frames, size_t n,
				      uint32_t *nodes_out);

#endif
