/* sj-address-policy.c
 *
 * SPDX-License-Identifier: AGPL-3.0-or-later
 *
 * Which hosts the app may fetch from on behalf of the page. Code in the
 * page (pasted from anywhere, or written by a model) asks the app for
 * sample maps and files, and the app reads the answer without a browser's
 * CORS: it must not become the page's way into a router, a printer or a
 * service on this computer. So an address is judged by what it is, not by
 * how it is written: every IPv4 address embedded in an IPv6 one (mapped,
 * compatible, NAT64, 6to4) is judged as the IPv4 address it carries, and
 * the downloads check the address actually connected to
 * (sj-sound-cache-guard.c), which also covers public names that resolve to
 * private addresses. Names that only mean something on a local network
 * (single labels, .local, .lan, .home.arpa, .internal) are refused before
 * any lookup. "Allow sample hosts on my local network" lets this computer
 * and the local network through; multicast, broadcast, unspecified and
 * reserved addresses never are.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sj-address-policy.h"

G_DEFINE_QUARK (sj-address-policy-error-quark, sj_address_policy_error)

/* Addresses --------------------------------------------------------------- */

static SjAddressClass
classify_ipv4 (const guint8 *b)
{
  /* 0.0.0.0/8 "this network", 192.0.0.0/24 protocol assignments, 224/4
   * multicast, 240/4 reserved (with 255.255.255.255, broadcast). */
  if (b[0] == 0 || (b[0] == 192 && b[1] == 0 && b[2] == 0) || b[0] >= 224)
    return SJ_ADDRESS_CLASS_SPECIAL;

  if (b[0] == 10 ||                                   /* 10/8 private */
      b[0] == 127 ||                                  /* 127/8 loopback */
      (b[0] == 100 && (b[1] & 0xc0) == 64) ||         /* 100.64/10 CGNAT */
      (b[0] == 169 && b[1] == 254) ||                 /* 169.254/16 link-local */
      (b[0] == 172 && (b[1] & 0xf0) == 16) ||         /* 172.16/12 private */
      (b[0] == 192 && b[1] == 168) ||                 /* 192.168/16 private */
      (b[0] == 198 && (b[1] & 0xfe) == 18))           /* 198.18/15 benchmarking */
    return SJ_ADDRESS_CLASS_LOCAL;

  return SJ_ADDRESS_CLASS_PUBLIC;
}

static gboolean
all_zero (const guint8 *b,
          guint         n)
{
  for (guint i = 0; i < n; i++)
    if (b[i] != 0)
      return FALSE;
  return TRUE;
}

static SjAddressClass
classify_ipv6 (const guint8 *b)
{
  static const guint8 nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
  static const guint8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

  /* :: and ::1. */
  if (all_zero (b, 15))
    return b[15] == 1 ? SJ_ADDRESS_CLASS_LOCAL : SJ_ADDRESS_CLASS_SPECIAL;

  /* ::ffff:0:0/96 mapped, ::/96 compatible, 64:ff9b::/96 NAT64: the IPv4
   * address in the last four bytes is what is reached. */
  if (memcmp (b, mapped, 12) == 0 || all_zero (b, 12) || memcmp (b, nat64, 12) == 0)
    return classify_ipv4 (b + 12);

  /* 64:ff9b:1::/48, local-use NAT64 (RFC 8215): local in itself, and its
   * IPv4 address is in bytes 6-7 and 9-10 (RFC 6052's /48 layout). */
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0x00 && b[5] == 0x01)
    {
      const guint8 v4[4] = { b[6], b[7], b[9], b[10] };

      return MAX (SJ_ADDRESS_CLASS_LOCAL, classify_ipv4 (v4));
    }

  /* 2002::/16, 6to4: the IPv4 address follows the prefix. */
  if (b[0] == 0x20 && b[1] == 0x02)
    return classify_ipv4 (b + 2);

  if (b[0] == 0xff)                                   /* ff00::/8 multicast */
    return SJ_ADDRESS_CLASS_SPECIAL;
  if ((b[0] & 0xfe) == 0xfc ||                        /* fc00::/7 unique local */
      (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) ||      /* fe80::/10 link-local */
      (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0))        /* fec0::/10 site-local (deprecated) */
    return SJ_ADDRESS_CLASS_LOCAL;

  return SJ_ADDRESS_CLASS_PUBLIC;
}

/**
 * sj_address_policy_classify:
 *
 * Returns: what @address is: public, this computer or the local network,
 *   or an address nothing should be fetched from
 */
SjAddressClass
sj_address_policy_classify (GInetAddress *address)
{
  const guint8 *bytes;

  g_return_val_if_fail (G_IS_INET_ADDRESS (address), SJ_ADDRESS_CLASS_SPECIAL);

  bytes = g_inet_address_to_bytes (address);
  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV4)
    return classify_ipv4 (bytes);
  if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
    return classify_ipv6 (bytes);

  return SJ_ADDRESS_CLASS_SPECIAL;
}

/**
 * sj_address_policy_check_address:
 * @allow_local: whether this computer and the local network may be reached
 *
 * Returns: whether @address may be connected to; if not, @error says why
 *   (%SJ_ADDRESS_POLICY_ERROR)
 */
gboolean
sj_address_policy_check_address (GInetAddress  *address,
                                 gboolean       allow_local,
                                 GError       **error)
{
  g_autofree char *text = NULL;

  g_return_val_if_fail (G_IS_INET_ADDRESS (address), FALSE);

  switch (sj_address_policy_classify (address))
    {
    case SJ_ADDRESS_CLASS_PUBLIC:
      return TRUE;
    case SJ_ADDRESS_CLASS_LOCAL:
      if (allow_local)
        return TRUE;
      text = g_inet_address_to_string (address);
      g_set_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_LOCAL,
                   /* TRANSLATORS: %s is an IP address */
                   _("%s is on this computer or the local network, not on the internet "
                     "(“Allow sample hosts on my local network” is off)"), text);
      return FALSE;
    case SJ_ADDRESS_CLASS_SPECIAL:
    default:
      text = g_inet_address_to_string (address);
      g_set_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_SPECIAL,
                   /* TRANSLATORS: %s is an IP address */
                   _("%s is not an address samples can be fetched from"), text);
      return FALSE;
    }
}

/* Names ------------------------------------------------------------------- */

/**
 * sj_address_policy_is_local_name:
 * @host: a host name (not an IP address), in ASCII
 *
 * Returns: whether @host only means something on this computer or a local
 *   network: a single label ("nas", "router"), localhost, or a name under
 *   .local, .lan, .home.arpa, .internal and the like
 */
gboolean
sj_address_policy_is_local_name (const char *host)
{
  static const char * const suffixes[] = {
    ".localhost", ".local", ".lan", ".home.arpa", ".internal", ".localdomain", ".home", ".intranet",
    ".corp", ".private", NULL
  };
  g_autofree char *lower = NULL;
  gsize len;

  g_return_val_if_fail (host != NULL, TRUE);

  lower = g_ascii_strdown (host, -1);
  len = strlen (lower);
  /* "nas." is "nas". */
  if (len > 0 && lower[len - 1] == '.')
    lower[--len] = '\0';
  if (len == 0 || strchr (lower, '.') == NULL || g_str_equal (lower, "localhost"))
    return TRUE;
  for (guint i = 0; suffixes[i] != NULL; i++)
    if (g_str_has_suffix (lower, suffixes[i]))
      return TRUE;

  return FALSE;
}

/* Whether the last label of @host is a number ("2130706433", "127.1",
 * "0x7f.1"): no top-level domain is, but a resolver reads such a name as
 * an IPv4 address in one of inet_aton()'s old spellings. */
static gboolean
is_numeric_name (const char *host)
{
  const char *last = strrchr (host, '.');
  gboolean digits = TRUE;

  last = last != NULL ? last + 1 : host;
  if (*last == '\0')
    return FALSE;
  if (g_ascii_strncasecmp (last, "0x", 2) == 0)
    return TRUE;
  for (const char *p = last; *p != '\0'; p++)
    if (!g_ascii_isdigit (*p))
      digits = FALSE;

  return digits;
}

/**
 * sj_address_policy_check_host:
 * @host: a URI's host: a name, an IPv4 address or an IPv6 address
 *   (without brackets)
 *
 * Judges @host as it is written, without looking it up: an IP address by
 * what it is, a name by sj_address_policy_is_local_name(). What a public
 * name resolves to is judged when it is connected to.
 *
 * Returns: whether @host may be fetched from; if not, @error says why
 */
gboolean
sj_address_policy_check_host (const char  *host,
                              gboolean     allow_local,
                              GError     **error)
{
  g_autoptr(GInetAddress) address = NULL;
  g_autofree char *bare = NULL;

  g_return_val_if_fail (host != NULL, FALSE);

  /* An IPv6 address may carry a zone ("fe80::1%eth0"). */
  bare = g_strdup (host);
  if (strchr (bare, ':') != NULL && strchr (bare, '%') != NULL)
    *strchr (bare, '%') = '\0';

  if ((address = g_inet_address_new_from_string (bare)) != NULL)
    return sj_address_policy_check_address (address, allow_local, error);

  if (*host == '\0' || strchr (host, ':') != NULL || is_numeric_name (host))
    {
      g_set_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS,
                   /* TRANSLATORS: %s is what a web address names as its host */
                   _("%s is not a host name or an IP address"), host);
      return FALSE;
    }

  if (!allow_local && sj_address_policy_is_local_name (host))
    {
      g_set_error (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_LOCAL,
                   /* TRANSLATORS: %s is a host name */
                   _("%s names a host on this computer or the local network, not on the internet "
                     "(“Allow sample hosts on my local network” is off)"), host);
      return FALSE;
    }

  return TRUE;
}

/**
 * sj_address_policy_check_uri:
 *
 * Returns: whether @uri is an http or https address, without a user name,
 *   whose host sj_address_policy_check_host() lets through
 */
gboolean
sj_address_policy_check_uri (GUri     *uri,
                             gboolean  allow_local,
                             GError  **error)
{
  const char *scheme;

  g_return_val_if_fail (uri != NULL, FALSE);

  scheme = g_uri_get_scheme (uri);
  if (scheme == NULL ||
      (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error_literal (error, SJ_ADDRESS_POLICY_ERROR, SJ_ADDRESS_POLICY_ERROR_ADDRESS,
                           _("it is not an http or https address"));
      return FALSE;
    }

  return sj_address_policy_check_host (g_uri_get_host (uri), allow_local, error);
}
