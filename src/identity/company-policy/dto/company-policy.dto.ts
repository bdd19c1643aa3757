import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { MAX_ALLOWLIST_ENTRIES } from '../../../accounts/company-policy/ip-allowlist';

/** docs/contract.md "Company policies and roles": the whole policy, read and written alike. */
export class CompanyPolicyDto {
  @ApiProperty({
    description:
      'A password login also needs TOTP (or is made with a passkey; SSO counts). A member without a second factor ' +
      'gets a session restricted to enrolling one.',
    example: false,
  })
  @IsBoolean()
  mfa_required: boolean;

  @ApiProperty({
    description:
      "Tokens expire at 23:59:59 Vietnam time this many days after the day they were issued (14: the source's)",
    minimum: 1,
    maximum: 14,
    example: 14,
  })
  @IsInt()
  @Min(1)
  @Max(14)
  session_days: number;

  @ApiProperty({
    description: 'A session unused this many minutes ends; null: never',
    type: 'integer',
    nullable: true,
    minimum: 15,
    maximum: 10080,
    example: null,
  })
  @ValidateIf((_, value) => value !== null)
  @IsInt()
  @Min(15)
  @Max(10080)
  idle_timeout_minutes: number | null;

  @ApiProperty({
    description:
      "CIDRs (IPv4 and IPv6) the company's logins and credentials are accepted from; empty: anywhere. Saved " +
      "normalised (network address / prefix); a list must hold the caller's own address.",
    type: [String],
    maxItems: MAX_ALLOWLIST_ENTRIES,
    example: ['203.0.113.0/24', '2001:db8::/32'],
  })
  @IsArray()
  @ArrayMaxSize(MAX_ALLOWLIST_ENTRIES)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  ip_allowlist: string[];
}
