# Measurement kernel (make measure): the test kernel without the debugging
# that runs on every VM exit (lockdep's IRQ-state tracking, DEBUG_VM checks)
# and would dominate both the exit rates and the ASI exits. Merged after
# the *.config fragments.
CONFIG_PROVE_LOCKING=n
CONFIG_DEBUG_VM=n
CONFIG_DEBUG_VIRTUAL=n
CONFIG_DEBUG_ATOMIC_SLEEP=n
# As production kernels: static keys patch code instead of reading memory
# that restricted spaces do not map.
CONFIG_JUMP_LABEL=y
