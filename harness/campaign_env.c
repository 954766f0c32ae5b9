// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign_env.c - the campaign's environment: block, parsed into an
 * il_envctl_spec (envctl.h).  All of it is in one function so that it can
 * later be driven by envctl's one table of environment keys.
 */
#include "campaign_internal.h"
#include "err.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- environment ------------------------------------------------------- */

static const char *const env_keys[] = {
	"pm_qos_us", "cpuidle_only", "governor", "pin_freq_khz", "sched_fifo",
	"mlockall", NULL,
};

int cs_parse_environment(struct ctx *x, const yaml_node_t *n)
{
	struct il_envctl_spec *e = &x->c->env;
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	uint64_t v;
	int ret, i;

	x->c->env_line = cy_line_of(n);
	ret = cy_check_mapping(x, n, "environment", "environment", env_keys);
	if (ret)
		return ret;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = cy_scalar(cy_node(x, p->key));
		yaml_node_t *vn = cy_node(x, p->value);

		/* null means "leave it alone", so a key can be switched off
		 * without deleting it. */
		if (cy_is_null(vn))
			continue;
		if (!strcmp(k, "pm_qos_us")) {
			/* The kernel takes an s32; 2000000000 is its "no limit". */
			ret = cy_get_uint(x, vn, k, 0, 2000000000, &v);
			e->pm_qos = true;
			e->pm_qos_us = (int32_t)v;
		} else if (!strcmp(k, "cpuidle_only")) {
			if (vn->type != YAML_SEQUENCE_NODE)
				return cy_fail(x, cy_line_of(vn), k,
					       "expected a list of idle state names (e.g. [C1]), got %s",
					       cy_kind_name(vn));
			i = (int)(vn->data.sequence.items.top - vn->data.sequence.items.start);
			if (!i)
				return cy_fail(x, cy_line_of(vn), k,
					       "empty list: at least one idle state must stay enabled (POLL counts)");
			e->cpuidle_only = calloc(i, sizeof(char *));
			if (!e->cpuidle_only)
				return il_errorf(-ENOMEM, "out of memory");
			for (it = vn->data.sequence.items.start, i = 0;
			     it < vn->data.sequence.items.top; it++, i++) {
				e->ncpuidle_only = i + 1;
				ret = cy_get_string(x, cy_node(x, *it), k,
						    &e->cpuidle_only[i]);
				if (ret)
					return ret;
			}
		} else if (!strcmp(k, "governor")) {
			ret = cy_get_string(x, vn, k, &e->governor);
		} else if (!strcmp(k, "pin_freq_khz")) {
			const char *s = cy_scalar(vn);

			if (s && !strcmp(s, "max")) {
				e->pin = IL_PIN_MAX;
				ret = 0;
			} else if (s && !strcmp(s, "min")) {
				e->pin = IL_PIN_MIN;
				ret = 0;
			} else {
				ret = cy_get_uint(x, vn, k, 1, UINT32_MAX, &e->pin_khz);
				if (ret && s)
					ret = cy_fail(x, cy_line_of(vn), k,
						      "expected max, min or a frequency in kHz, got '%s'",
						      s);
				e->pin = IL_PIN_KHZ;
			}
		} else if (!strcmp(k, "sched_fifo")) {
			const char *s = cy_scalar(vn);

			/* "false" reads better than 0 for "do not". */
			if (s && cy_plain(vn) && (!strcasecmp(s, "false") || !strcasecmp(s, "no"))) {
				e->sched_fifo = 0;
				ret = 0;
			} else {
				ret = cy_get_uint(x, vn, k, 1, 99, &v);
				e->sched_fifo = (int)v;
			}
		} else {
			ret = cy_get_bool(x, vn, k, &e->mlockall);
		}
		if (ret)
			return ret;
	}
	return 0;
}
