/* model.h - private to the model (common/model/): the node-level calls bulk building rests
 * on, whose invariants (which nodes the child table indexes) only the model keeps. */
#ifndef FK_MODEL_H
#define FK_MODEL_H

#include "internal.h"

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
