// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_redact.c - redact.h, what `idlelab publish` takes out: keyed
 * pseudonyms (stable per key, different across keys, a version-8 UUID),
 * the kernel command line's allow list (kernel quoting, init's arguments
 * after "--"), the fingerprint walk and the hwloc XML walk, each listing
 * by name what it removed and never a value.
 */
#include "redact.h"
#include "env.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct il_redact_key key(unsigned char fill)
{
	struct il_redact_key k;

	memset(&k, 0, sizeof(k));
	memset(k.k, fill, sizeof(k.k));
	return k;
}

/* @a's strings joined by ',', in a static buffer. */
static const char *joined(json_t *a)
{
	static char buf[1024];
	size_t i, len = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? "," : "", json_string_value(v));
	return buf;
}

TEST(pseudonyms)
{
	struct il_redact_key k1 = key(1), k2 = key(2);
	const char *u = "485da137-9ba9-8c61-9c60-d9ff2c08396e";
	char a[37], b[37], c[37], h1[IL_REDACT_HOST_LEN], h2[IL_REDACT_HOST_LEN];

	il_redact_uuid(&k1, u, a);
	il_redact_uuid(&k1, "485DA137-9BA9-8C61-9C60-D9FF2C08396E", b);
	il_redact_uuid(&k2, u, c);
	CHECK(!strcmp(a, b));
	CHECK(strcmp(a, c));
	CHECK(strcmp(a, u));
	CHECK(il_uuid_valid(a));
	CHECK(a[14] == '8' && strchr("89ab", a[19]));
	il_redact_host(&k1, u, h1);
	il_redact_host(&k2, u, h2);
	CHECK(!strncmp(h1, "host-", 5) && strlen(h1) == 17);
	CHECK(strcmp(h1, h2));
	il_redact_host(&k1, "485DA137-9BA9-8C61-9C60-D9FF2C08396E", h2);
	CHECK(!strcmp(h1, h2));
	/* Another machine, whatever its hostname, is another pseudonym. */
	il_redact_host(&k1, "485da137-9ba9-8c61-9c60-d9ff2c08396f", h2);
	CHECK(strcmp(h1, h2));
	/* The host's pseudonym never equals the first digits of its UUID's. */
	CHECK(strncmp(h1 + 5, a, 8));
}

TEST(cmdline)
{
	json_t *dropped = json_array();
	char *s = il_redact_cmdline("BOOT_IMAGE=/vmlinuz root=UUID=0f1e ro "
				    "intel_idle.max_cstate=1 ip=10.0.0.2:::::eth0:off "
				    "x2apic_phys  nohz_full=2-3 foo=\"a b\" idle=poll "
				    "mitigations=off -- single secret", dropped);

	CHECKF(!strcmp(s, "intel_idle.max_cstate=1 x2apic_phys nohz_full=2-3 idle=poll mitigations=off"),
	       "kept '%s'", s);
	CHECKF(!strcmp(joined(dropped), "BOOT_IMAGE,root,ro,ip,foo,-- (init's arguments)"),
	       "dropped '%s'", joined(dropped));
	free(s);
	json_decref(dropped);
	CHECK(il_redact_cmdline_keeps("processor.max_cstate=1"));
	CHECK(il_redact_cmdline_keeps("cpuidle.governor=menu"));
	CHECK(!il_redact_cmdline_keeps("idlex=1"));
	CHECK(!il_redact_cmdline_keeps("nfsroot=10.0.0.1:/srv"));
}

TEST(fingerprint)
{
	json_t *removed = json_array(), *fp;
	char *out = NULL;
	int ret = il_redact_fingerprint(
		"{\"hostname\":\"lab7\",\"uts_hostname\":\"vm\","
		"\"kernel\":{\"release\":\"6.1\",\"cmdline\":\"root=/dev/sda1 nosmt\"},"
		"\"dmi\":{\"product_name\":\"Box\",\"product_serial\":\"S1\","
		"\"product_uuid\":\"u\",\"chassis_asset_tag\":\"A\"},"
		"\"disks\":[{\"SerialNumber\":\"D1\",\"model\":\"m\"}]}",
		"host-000000000000", removed, &out);

	CHECK(ret == 0);
	fp = json_loads(out ? out : "", 0, NULL);
	free(out);
	CHECK(!strcmp(json_string_value(json_object_get(fp, "hostname")), "host-000000000000"));
	CHECK(!strcmp(json_string_value(json_object_get(fp, "uts_hostname")), "host-000000000000"));
	CHECK(!strcmp(json_string_value(json_object_get(json_object_get(fp, "kernel"), "cmdline")), "nosmt"));
	CHECK(json_object_size(json_object_get(fp, "dmi")) == 1);
	CHECK(json_object_size(json_array_get(json_object_get(fp, "disks"), 0)) == 1);
	CHECKF(!strcmp(joined(removed), "kernel command line: root,fingerprint: dmi.product_serial,"
		       "fingerprint: dmi.product_uuid,fingerprint: dmi.chassis_asset_tag,"
		       "fingerprint: disks[0].SerialNumber"), "removed '%s'", joined(removed));
	out = NULL;
	CHECK(il_redact_fingerprint("not json", "h", NULL, &out) == -EINVAL && !out);
	json_decref(fp);
	json_decref(removed);
}

TEST(hwloc_xml)
{
	json_t *removed = json_array();
	char *out = NULL;

	CHECK(il_redact_hwloc_xml("<topology>\n"
				  "  <info name=\"DMIProductName\" value=\"Box\"/>\n"
				  "  <info name=\"DMIProductSerial\" value=\"S1\"/>\n"
				  "  <info name=\"HostName\" value=\"lab7\"/>\n"
				  "  <info name=\"Address\" value=\"52:54:00:00:00:01\"/>\n"
				  "</topology>\n", "host-000000000000", removed, &out) == 0);
	CHECKF(!strcmp(out, "<topology>\n"
		       "  <info name=\"DMIProductName\" value=\"Box\"/>\n"
		       "  <info name=\"HostName\" value=\"host-000000000000\"/>\n"
		       "</topology>\n"), "got '%s'", out);
	CHECK(!strcmp(joined(removed), "hwloc XML: info DMIProductSerial,hwloc XML: info Address"));
	free(out);
	json_decref(removed);
}

int main(void)
{
	RUN(pseudonyms);
	RUN(cmdline);
	RUN(fingerprint);
	RUN(hwloc_xml);
	return tap_done();
}
