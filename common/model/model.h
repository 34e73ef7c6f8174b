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

/* A name table slot: where the name's bytes are, so a lookup reads the slot and then the
 * bytes, not the entry in between; and the hash's high bits, which also pick the slot (a
 * rehash reads no entry). */
struct name_slot {
	uint32_t tag;   /* the name's hash >> 32 */
	uint32_t id1;   /* id + 1; 0 = empty */
	uint64_t at;    /* offset into str << 24 | length, or NAME_AT_FAR: see the entry */
};
#define NAME_AT_FAR UINT64_MAX

struct child_ent {
	uint64_t key;   /* parent << 32 | frame */
	uint32_t node;  /* 0 = empty slot (node 0 is the root, never a child) */
	uint32_t pad;
};

/* Stack mode (stacks.c): one unique stack, its ids at sid[off .. off + len). */
struct stk {
	uint64_t off;
	uint32_t len;
	uint32_t hash;  /* high bits of the sequence's hash (the table keeps the low ones) */
	double self[2];
};

/* The names the renderers look up in a sealed profile (profile.c's asked[]). */
enum { FK_ASKED = 2 };

struct fk_profile {
	unsigned flags;
	unsigned ncols;
	char *str;
	size_t str_len, str_cap, str_reserved; /* (see fk_grow_reserved) */
	struct name_ent *names;
	size_t nnames, names_cap, names_reserved; /* (see fk_grow_reserved) */
	struct name_slot *name_tab; /* size a power of two: two halves (a tag's parity picks) */
	size_t name_tab_mask;
	size_t name_par[2];     /* names in the table's two halves, by tag parity (each fills on its own) */
	fk_node *nodes;
	size_t nnodes, nodes_cap;
	size_t nodes_reserved;  /* nodes' stretch of address space (fk_grow_reserved_from), or 0 */
	struct child_ent *child_tab;
	size_t child_tab_mask;
	size_t nindexed;        /* nodes [0, nindexed) are in child_tab (see child_unindexed) */
	fk_sample *samples;
	size_t nsamples, samples_cap;
	uint32_t *scratch;      /* frame ids for add_folded */
	size_t scratch_cap;
	/* stack mode: while nstk > 0 the profile is its unique stacks (the tree is the root
	 * alone, with no count); the tree is built from them when a caller needs nodes */
	uint32_t *sid;
	size_t nsid, sid_cap, sid_reserved; /* (see fk_grow_reserved) */
	struct stk *stk;
	size_t nstk, stk_cap, stk_reserved;
	uint64_t *stk_tab;      /* hash's high 32 bits << 32 | index + 1; 0 = empty */
	size_t stk_tab_mask;
	bool sealed;            /* fk_profile_seal: its lookup tables gone, it takes no more */
	int64_t asked_id[FK_ASKED]; /* sealed: the ids of the names renderers ask for (asked[]) */
	char *unit;             /* what the counts are (NULL = unknown) */
	char *unit_from;        /* the input that gave it (NULL = unknown), and its format:
				 * the mixed-units warning names them */
	char unit_format[32];
	int kind;               /* enum fk_profile_kind */
	unsigned threads;       /* fk_profile_use_threads */
	fk_toucher toucher;     /* (fk_profile_set_toucher; touch NULL: none) */
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

/* Stack mode -> tree mode (no-op in tree mode); 0 or a negative error. Every call that
 * reads or changes nodes makes sure of the tree first. */
FK_HIDDEN int fk_model_tree(fk_profile *p);
static inline int fk_model_tree_c(const fk_profile *p) { return fk_model_tree((fk_profile *)p); }
FK_HIDDEN void fk_stacks_free(fk_profile *p);
/* The stacks' lookup table freed (a sealed profile adds no stack). */
FK_HIDDEN void fk_stacks_drop_index(fk_profile *p);
/* Sibling orders of a sort over names (stacks.c): by name (a prefix first), and by the
 * folded text, where a frame that ends its stack sorts as its bare name and one that goes on
 * as the name followed by ';' (so every line sorts as its whole text does, bytewise). */
enum { FK_ORDER_NAME, FK_ORDER_TEXT };
/* The unique stacks in order (stack mode): ord[0..nstk) := stack indexes; *rank_out (when
 * not NULL) := the names' ranks the order was made of (2 * id + last in FK_ORDER_TEXT), the
 * caller's to free. 0 or -FK_E_NOMEM. */
FK_HIDDEN int fk_stacks_sorted(const fk_profile *p, int order, uint32_t *ord, uint32_t **rank_out);
/* fk_profile_walk of stack mode; *rank as fk_stacks_sorted's (FK_ORDER_NAME), when not NULL;
 * in two parts where sp asks (fk_profile_walk_split), or NULL. */
FK_HIDDEN int fk_stacks_walk(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const fk_walk_split *sp,
			     uint32_t **rank);

#endif
