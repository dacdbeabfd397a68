/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One CPU's ASI state machine: enter, exit, target, with interrupts and
 * NMIs nesting at every step.
 *
 * Abstracted (paths under build/linux, branch asi):
 *   arch/x86/mm/asi/switch.c      __asi_enter(), asi_enter(),
 *                                 asi_exit_reason(), asi_exit(),
 *                                 asi_handle_page_fault()
 *   arch/x86/include/asm/asi.h    asi_intr_enter(), asi_intr_exit(),
 *                                 asi_switch_intr_nest(),
 *                                 asi_set_target_unrestricted()
 *   kernel/entry/common.c         irqentry_enter(), irqentry_exit(),
 *                                 irqentry_nmi_enter(), irqentry_nmi_exit()
 *   arch/x86/mm/fault.c           exc_page_fault()
 *   kernel/sched/core.c           __schedule()
 *   arch/x86/kernel/process_64.c  __switch_to()
 *   arch/x86/kvm/vmx/vmx.c        vmx_vcpu_enter_exit() (HOST_CR3)
 *   arch/x86/kvm/x86.c            vcpu_enter_guest()
 *   arch/x86/kvm/asi.c            kvm_asi_post_enter()
 *   arch/x86/include/asm/entry-common.h  arch_exit_to_user_mode_prepare()
 *   arch/x86/mm/asi/stress.c      asi_stress_fn() (TASK_STRESS)
 *
 * Each process is one hardware context: the task, up to MAXIRQ nested
 * interrupt handlers (an interrupt nests in another's softirq tail) and
 * one NMI. A process runs only while it is the innermost context (its
 * provided clause), and the controller may push an interrupt or an NMI
 * between any two steps, so every statement below is a point where one
 * can arrive. There is one restricted instance: KVM enters the instance
 * of its mm, and a CPU never switches between two instances without an
 * exit in between, so the "if (curr) asi_exit_reason()" branch of
 * __asi_enter() is not reachable here.
 *
 * The model follows the code as fixed (README.md, Findings); each BUG_*
 * macro puts back the code as it was, and each must fail:
 *   BUG_NMI_ENTER    __asi_enter() saves CR3 as the one to go back to
 *                    without looking again whether an NMI entered
 *   BUG_NMI_PF       asi_handle_page_fault() oopses when an NMI exited
 *                    between the #PF and its check of curr_asi
 *   BUG_LIVE_CR3_WALK asi_handle_page_fault() walks the loaded tables
 *                    after the exit, which an NMI's return may have
 *                    switched back to the restricted ones
 *   BUG_ENTRY_FAULT  vmx_vcpu_enter_exit() does not enter again before
 *                    HOST_CR3 after a fault on the way from asi_enter()
 *                    (fails the flush check; with NO_FLUSH_CHECK, the
 *                    VM exit check: HOST_CR3 full while curr_asi is set)
 * TASK_STRESS makes the task asi_stress_fn() instead of a vCPU.
 *
 * Properties (assertions):
 *   INV         CR3 is never restricted while curr_asi is NULL
 *   fault       every fault in a restricted space finds curr_asi set in
 *               asi_handle_page_fault() (else the kernel oopses), or
 *               an NMI exit recorded (nmi_exited) and the full tables
 *   target      after the outermost return, curr_asi is the target; a
 *               context that ran restricted in its target when the
 *               outermost handler came is back there, CR3 included
 *   nesting     intr_nest_depth counts the running task's handlers,
 *               across context switches
 *   VM exit     back from the guest, CR3 is where curr_asi says
 *   flush       no VM entry after a full-space access without a flush
 *   scheduler   __schedule() never runs with a target; userspace is
 *               entered unrestricted
 * Mutants, each must break one: MUTANT_NO_INTR_RESTORE (no re-entry on
 * the outermost return), MUTANT_NO_NEST_SWITCH (__switch_to() keeps the
 * depth), MUTANT_EXIT_CURR_FIRST, MUTANT_ENTER_CR3_FIRST (the state
 * written on the wrong side of the CR3 write), MUTANT_NO_NMI_RECORD (an
 * NMI's exit not recorded: the raced fault goes to the normal handler).
 */

#define NONE	0
#define ASI	1		/* the one restricted instance */
#define FULL	0		/* CR3 values */
#define RESTR	1

#ifndef ITERS
#define ITERS	2		/* rounds of the task */
#endif
#ifndef NIRQ
#define NIRQ	2		/* interrupts in the whole run */
#endif
#ifndef NNMI
#define NNMI	2		/* NMIs in the whole run */
#endif
#ifndef NSCHED
#define NSCHED	1		/* context switches (round trips) */
#endif
#define MAXIRQ	2		/* interrupt nesting */

/* struct asi_state, per CPU */
byte curr = NONE;		/* curr_asi */
byte target = NONE;		/* target_asi */
byte ucr3 = FULL;		/* unrestricted_cr3 */
byte depth = 0;			/* intr_nest_depth of the running task */

byte cr3 = FULL;		/* the hardware register */
byte host_cr3 = FULL;		/* VMX: loaded_vmcs->host_state.cr3 */
bool dirty = false;		/* sensitive data touched since the last flush */

/* Hardware contexts */
bool irqs_on = true;		/* RFLAGS.IF */
byte ni = 0;			/* interrupt frames on the stack */
bool irq_busy[MAXIRQ + 1];
bool nmi_on = false;
bool nmi_if;			/* IF saved by the NMI */
byte irq_budget = NIRQ;
byte nmi_budget = NNMI;

/* asi_pcpu.nmi_exited: an NMI left the space since the last enter */
bool nmi_exited = false;

/* Scheduler */
bool preemptible = false;	/* the task's preempt count is 0 */
byte sched_budget = NSCHED;
byte other_depth = 1;		/* another task, preempted in an irq return */
bool other_in_irq = true;
/*
 * What intr_nest_depth should be: handlers of the running task between
 * their asi_intr_enter() and asi_intr_exit(), always switched right.
 */
byte shadow = 0;
byte other_shadow = 1;

/*
 * Never restricted while ASI thinks it is not: a fault there would find
 * no curr_asi and oops. Checked after every write to cr3 or curr.
 */
#define INV	assert(!(cr3 == RESTR && curr == NONE))

/* Locals of a context that runs these inlines. */
#define CTX_LOCALS	byte l_t, l_c, l_d, l_cr3, l_pf, l_walk; bool l_if, l_sif, l_pif, l_settled; byte l_sw

/*
 * asi_exit_reason(): CR3 first, then the state ("state after CR3 on
 * exit"), so that an NMI in between still finds curr_asi and can fault
 * out. The post_asi_exit hook is the stun model's business.
 */
inline asi_exit_reason()
{
	if
	:: curr == NONE -> skip
	:: else ->
		l_cr3 = ucr3;
#ifdef MUTANT_EXIT_CURR_FIRST
		atomic { curr = NONE; INV };
		atomic { cr3 = l_cr3; INV }
#else
		atomic { cr3 = l_cr3; INV };
		atomic { curr = NONE; INV }
#endif
		;
		/* if (in_nmi()) nmi_exited = true: only the NMI runs now */
		if
#ifndef MUTANT_NO_NMI_RECORD
		:: nmi_on -> nmi_exited = true
#endif
		:: else -> skip
		fi
	fi
}

/*
 * __asi_enter(): state first, then CR3, with interrupts off around it
 * (NMIs still come, and the return of one at depth 0 enters the target
 * itself). CR3 is read before curr_asi is looked at again, and curr_asi
 * is claimed with a cmpxchg: an NMI that entered meanwhile did the switch.
 * The post_asi_enter hook (kvm_asi_post_enter()) flushes what the full
 * address space pulled into the CPU.
 */
inline __asi_enter()
{
	l_t = target;
	l_c = curr;
	if
	:: l_t == NONE || l_c == l_t -> l_t = NONE
	:: else ->
		l_if = irqs_on;
		irqs_on = false;
#ifdef BUG_NMI_ENTER
		/* unrestricted_cr3 = __native_read_cr3() */
		ucr3 = cr3
#else
		l_cr3 = cr3;
		if
		:: curr != NONE -> l_t = NONE; irqs_on = l_if
		:: else -> ucr3 = l_cr3
		fi
#endif
	fi;
	if
	:: l_t == NONE -> skip
	:: else ->
#if defined(MUTANT_ENTER_CR3_FIRST)
		atomic { cr3 = RESTR; INV };
		atomic { curr = l_t; INV };
#elif defined(BUG_NMI_ENTER)
		atomic { curr = l_t; INV };
		atomic { cr3 = RESTR; INV };
#else
		/* raw_cpu_cmpxchg(curr_asi, NULL, target) */
		atomic {
			if
			:: curr == NONE -> curr = l_t; INV
			:: else -> l_t = NONE
			fi
		};
		if
		:: l_t == NONE -> skip
		:: else -> nmi_exited = false; atomic { cr3 = RESTR; INV }
		fi;
#endif
		irqs_on = l_if;
		/* post_asi_enter: kvm_asi_post_enter() -> kvm_asi_flush() */
		if
		:: l_t != NONE -> dirty = false
		:: else -> skip
		fi
	fi
}

/* asi_enter(): the target first, then the switch. */
inline asi_enter()
{
	target = ASI;
	__asi_enter()
}

/*
 * An access to sensitive memory. Restricted, it faults, and
 * exc_page_fault() calls asi_handle_page_fault() first: that must find
 * curr_asi set, or the normal handler oopses on the kernel address. It
 * exits and the access is retried, possibly after an NMI return put the
 * CPU back into the target, hence the loop.
 */
inline touch_sensitive()
{
	do
	:: atomic {
		/* #PF is an interrupt gate: only NMIs until the check */
		cr3 == RESTR -> l_pif = irqs_on; irqs_on = false
	   };
		l_pf = curr;
#ifdef BUG_NMI_PF
		/* asi_handle_page_fault(): !asi_get_current() -> oops */
		assert(l_pf != NONE);
		asi_exit_reason()
#else
		/*
		 * asi_fault_raced_nmi(): out already, which only an NMI's
		 * exit since the last enter explains (it walks the tables
		 * only then): read CR3, look at curr_asi again (an NMI that
		 * entered meanwhile: retry, and fault in the space), walk
		 * what was read; the full tables allow the access.
		 */
		if
		:: l_pf == NONE ->
			assert(nmi_exited);
			l_walk = cr3;
			if
			:: curr == NONE -> assert(l_walk == FULL)
			:: else -> skip
			fi
		:: else ->
#ifdef BUG_LIVE_CR3_WALK
			/* asi_access_allowed() walked the loaded tables */
			asi_exit_reason();
			l_walk = cr3;
#else
			/* it walks the tables the exit goes to */
			l_walk = ucr3;
			asi_exit_reason();
#endif
			/* restricted ones would not allow it: oops */
			assert(l_walk == FULL)
		fi
#endif
		;
		irqs_on = l_pif
	:: atomic { cr3 == FULL -> dirty = true };
		break
	od
}

/* irqentry_enter() / irqentry_nmi_enter(): first thing. */
inline asi_intr_enter()
{
	atomic {
		l_settled = (depth == 0 && target != NONE && curr == target &&
			     cr3 == RESTR);
		depth++;
		shadow++
	}
}

/*
 * irqentry_exit() / irqentry_nmi_exit(): last thing. The outermost return
 * goes back into the target. Whoever ran restricted in the target when
 * the outermost handler came must find itself there again.
 */
inline asi_intr_exit()
{
	atomic { depth--; shadow--; l_d = depth };
#ifndef MUTANT_NO_INTR_RESTORE
	l_t = target;
	l_c = curr;
	if
	:: l_d == 0 && l_t != NONE && l_t != l_c -> __asi_enter()
	:: else -> skip
	fi;
#endif
	assert(l_d != 0 || target == NONE || curr == target);
	assert(!l_settled || l_d != 0 || (curr == target && cr3 == RESTR))
}

/*
 * __schedule() and a round trip through another task, which was itself
 * preempted on an interrupt return: __switch_to() swaps the nesting depth
 * (asi_switch_intr_nest()), the other task finishes its irqentry_exit()
 * and switches back.
 */
inline schedule()
{
	assert(target == NONE);		/* VM_WARN_ON_ONCE() in __schedule() */
	l_sif = irqs_on;
	irqs_on = false;
	target = NONE;
	asi_exit_reason();
	atomic {
		l_sw = shadow; shadow = other_shadow; other_shadow = l_sw;
#ifndef MUTANT_NO_NEST_SWITCH
		l_sw = depth; depth = other_depth
#endif
	};
	if
	:: other_in_irq ->
		l_settled = false;
		asi_intr_exit();
		other_in_irq = false
	:: else -> skip
	fi;
	target = NONE;
	asi_exit_reason();
	atomic {
		l_d = shadow; shadow = other_shadow; other_shadow = l_d;
#ifndef MUTANT_NO_NEST_SWITCH
		other_depth = depth; depth = l_sw
#endif
	};
	irqs_on = l_sif
}

/* An interrupt handler at nesting level k. */
#define IRQ_PROC(k)							\
active proctype irq##k() provided (ni == k && !nmi_on)			\
{									\
	CTX_LOCALS;							\
end:									\
	do								\
	:: irq_busy[k] ->						\
		asi_intr_enter();					\
		if							\
		:: touch_sensitive()					\
		:: skip							\
		fi;							\
		/* softirqs on the way out run with interrupts on */	\
		if							\
		:: k < MAXIRQ -> irqs_on = true; irqs_on = false	\
		:: else -> skip						\
		fi;							\
		/* irqentry_exit_cond_resched() */			\
		if							\
		:: k == 1 && preemptible && sched_budget > 0 ->		\
			sched_budget--;					\
			schedule()					\
		:: else -> skip						\
		fi;							\
		asi_intr_exit();					\
		atomic {						\
			assert(depth == shadow);			\
			irqs_on = true;					\
			irq_busy[k] = false;				\
			ni--						\
		}							\
	od								\
}

IRQ_PROC(1)
IRQ_PROC(2)

active proctype nmi() provided (nmi_on)
{
	CTX_LOCALS;
end:
	do
	:: nmi_on ->
		asi_intr_enter();
		if
		:: touch_sensitive()
		:: skip
		fi;
		asi_intr_exit();
		atomic {
			assert(depth == shadow);
			irqs_on = nmi_if;
			nmi_on = false
		}
	od
}

/* The interrupt controller: anything, anywhere, within the budgets. */
active proctype intc()
{
end:
	do
	:: atomic {
		irqs_on && !nmi_on && ni < MAXIRQ && irq_budget > 0 ->
		irq_budget--;
		ni++;
		irqs_on = false;
		irq_busy[ni] = true
	   }
	:: atomic {
		!nmi_on && nmi_budget > 0 ->
		nmi_budget--;
		nmi_if = irqs_on;
		irqs_on = false;
		nmi_on = true
	   }
	od
}

/*
 * A VM entry and exit: vcpu_enter_guest() and, inside it,
 * vmx_vcpu_enter_exit(). Interrupts are off from before asi_enter() to
 * after the target is cleared, so only NMIs see the target set.
 */
inline vmx_round()
{
	preemptible = false;
	irqs_on = false;
	asi_enter();
	/* the L1D flush, CR2: a fault on the way exits */
	if
	:: touch_sensitive()
	:: skip
	fi;
#ifndef BUG_ENTRY_FAULT
	/* enter again (and flush) if it did, then HOST_CR3 = CR3 */
	asi_enter();
#endif
	l_cr3 = cr3;
	host_cr3 = l_cr3;
	/* VM entry: nothing the full tables pulled in may be left */
#ifndef NO_FLUSH_CHECK
	assert(!dirty);
#endif
	/* The guest runs; VM exit loads HOST_CR3. */
	atomic {
		cr3 = host_cr3;
		INV;
		/* back where ASI thinks the CPU is */
		assert(curr == NONE || cr3 == RESTR)
	};
	/* vmx_vcpu_enter_exit() out: */
	target = NONE;
	irqs_on = true;
	/* the exit is handled restricted until it faults out */
	if
	:: touch_sensitive()
	:: skip
	fi;
	preemptible = true
}

/*
 * asi_stress_fn() (arch/x86/mm/asi/stress.c): restricted with interrupts
 * on, so interrupts arrive with the target set, may fault out, and the
 * outermost return re-enters.
 */
inline stress_round()
{
	preemptible = false;
	asi_enter();
	if
	:: touch_sensitive()		/* READ_ONCE(*secret) */
	:: skip
	fi;
	asi_exit_reason();		/* asi_exit() */
	target = NONE;
	preemptible = true
}

/* The task: ITERS rounds of one kind, then back to userspace. */
active proctype task() provided (ni == 0 && !nmi_on)
{
	CTX_LOCALS;
	byte it = 0;

	preemptible = true;
	do
	:: it < ITERS ->
		/* cond_resched() */
		if
		:: sched_budget > 0 -> sched_budget--; schedule()
		:: skip
		fi;
#ifdef TASK_STRESS
		stress_round();
#else
		vmx_round();
#endif
		it++
	:: else -> break
	od;
	/* arch_exit_to_user_mode_prepare() */
	irqs_on = false;
	target = NONE;
	asi_exit_reason();
	assert(curr == NONE && cr3 == FULL)
}
