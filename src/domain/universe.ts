import {z} from 'zod';

/** The ten regions of the CultureConverse persona universe (paper Table 7). */
export const RegionCode = z.enum(['BN', 'CN', 'ID', 'JP', 'KR', 'MY', 'PH', 'SG', 'TH', 'VN']);
export type RegionCode = z.infer<typeof RegionCode>;
export const REGION_CODES = RegionCode.options;

/** The nine native languages that identities route to (paper Table 7). */
export const LanguageId = z.enum(['malay', 'mandarin', 'indonesian', 'japanese', 'korean', 'tamil', 'filipino', 'thai', 'vietnamese']);
export type LanguageId = z.infer<typeof LanguageId>;

export const Script = z.enum(['latin', 'han', 'japanese', 'hangul', 'tamil', 'thai']);
export type Script = z.infer<typeof Script>;

export const AgeCohort = z.enum(['18-34', '35-54', '55+']);
export type AgeCohort = z.infer<typeof AgeCohort>;
export const Gender = z.enum(['female', 'male']);
export type Gender = z.infer<typeof Gender>;

const slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a lower-case slug like "my-malay-muslim"');
/** Tags shared by personas and KB entries: `religion:islam`, `ethnicity:tamil`, `identity:my-tamil-hindu`, `indigenous`. */
export const Tag = z.string().regex(/^(?:(?:religion|ethnicity|lang|locality|identity|friction):[A-Za-z0-9-]+|indigenous)$/, 'must look like "religion:islam", "identity:<id>" or "indigenous"');

export const Language = z.strictObject({
	id: LanguageId,
	name: z.string().min(1),
	native: z.string().min(1),
	code: z.string().min(2),
	script: Script,
});
export type Language = z.infer<typeof Language>;

export const Region = z.strictObject({
	id: RegionCode,
	name: z.string().min(1),
	/** Regions used as the second culture of contextual (cross-cultural) seeds. */
	neighbours: z.array(RegionCode),
});
export type Region = z.infer<typeof Region>;

export const RegionsFile = z.strictObject({
	version: z.literal(1),
	languages: z.array(Language).length(9),
	regions: z.array(Region).length(10),
});

export const Identity = z.strictObject({
	id: slug,
	region: RegionCode,
	label: z.string().min(1),
	language: LanguageId,
	tags: z.array(Tag).min(1),
});
export type Identity = z.infer<typeof Identity>;

export const IdentitiesFile = z.strictObject({
	version: z.literal(1),
	ages: z.array(AgeCohort).length(3),
	genders: z.array(Gender).length(2),
	identities: z.array(Identity).min(1),
});

/** One persona p = (region, identity, age, gender) of the 348-persona universe. */
export const Persona = z.strictObject({
	id: z.string().describe('Stable readable id: <identity id>-<a18|a35|a55>-<f|m>'),
	region: RegionCode,
	regionName: z.string(),
	identityId: slug,
	identity: z.string().describe('Identity label from the paper, e.g. "Tamil Hindu"'),
	language: LanguageId,
	languageName: z.string(),
	age: AgeCohort,
	gender: Gender,
	tags: z.array(Tag),
});
export type Persona = z.infer<typeof Persona>;

export const Subdomain = z.strictObject({
	id: z.string().regex(/^[a-z]+\.[a-z0-9-]+$/, 'must look like "<domain>.<name>"'),
	name: z.string().min(1),
	description: z.string().min(20),
});
export type Subdomain = z.infer<typeof Subdomain>;

export const DomainId = z.enum(['culinary', 'interpersonal', 'ritual', 'economic', 'domestic', 'lifestyle', 'health']);
export type DomainId = z.infer<typeof DomainId>;
export const DOMAIN_IDS = DomainId.options;

export const Domain = z.strictObject({
	id: DomainId,
	name: z.string().min(1),
	description: z.string().min(20),
	subdomains: z.array(Subdomain).length(6),
});
export type Domain = z.infer<typeof Domain>;

export const DomainsFile = z.strictObject({
	version: z.literal(1),
	dimensions: z.array(slug).min(1),
	domains: z.array(Domain).length(7),
});
