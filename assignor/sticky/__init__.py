"""``sticky`` and ``cooperative-sticky``: Kafka's AbstractStickyAssignor and its two flavours.

Step 0 resolves previous ownership by generation (assignor.ownership). When every member
subscribes to the same topics the constrained builder runs, otherwise the general one; both
are KIP-881 rack aware. ``cooperative-sticky`` then withholds every partition that changes
owner (KIP-429): its new owner gets it in the next round, after the old one revoked it.
``sticky`` is Kafka's eager StickyAssignor: everything is revoked before the rebalance, so an
offline scenario runs it (and ``range``) on the eager protocol and nothing is withheld. The
withholding itself is the seam's (assignor.api), by the group's protocol: the agent's
PlanFollower groups hand over cooperatively whichever assignor plans them.

Example: c1 owned t-0..t-3, c2 joins -> cooperative-sticky keeps t-0, t-1 on c1 and withholds
t-2, t-3 (target c2); the follow-up round gives them to c2.
"""

from assignor.sticky.assign import assign_cooperative_sticky, assign_eager_sticky, assign_sticky

__all__ = ["assign_cooperative_sticky", "assign_eager_sticky", "assign_sticky"]
