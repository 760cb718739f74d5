/**
 * Words that make a template culture-specific. Templates must stay culture-agnostic (paper section 3.3):
 * the blueprint stage fills regional detail into slots, so a region, faith, festival, dish or currency
 * name in a template's text would leak one culture into every persona it is paired with.
 */
/** Proper nouns, matched with their capital letter ("Lent" the season, not "lent" the verb). */
const PROPER = [
	// regions, countries and demonyms
	'Brunei', 'Bruneian', 'China', 'Chinese', 'Indonesia', 'Indonesian', 'Japan', 'Japanese', 'Korea', 'Korean',
	'Malaysia', 'Malaysian', 'Philippines', 'Filipino', 'Filipina', 'Pinoy', 'Singapore', 'Singaporean', 'Thailand', 'Thai',
	'Vietnam', 'Vietnamese', 'Malay', 'Tamil', 'Javanese', 'Sundanese', 'Balinese', 'Batak', 'Minangkabau', 'Hui', 'Uyghur',
	'Tibetan', 'Mongolian', 'Okinawan', 'Ryukyuan', 'Ainu', 'Zainichi', 'Jeju', 'Visayan', 'Tagalog', 'Ilocano', 'Moro',
	'Chinoy', 'Isan', 'Lanna', 'Kinh', 'Hoa', 'Khmer', 'Bumiputera', 'Dayak', 'Iban', 'Kadazan', 'Mandarin', 'Cantonese', 'Hokkien',
	'Western', 'American', 'European', 'Asian',
	// faiths
	'Muslim', 'Islam', 'Islamic', 'Christian', 'Christianity', 'Catholic', 'Protestant', 'Evangelical', 'Buddhist', 'Buddhism',
	'Hindu', 'Hinduism', 'Taoist', 'Taoism', 'Confucian', 'Shinto', 'Iglesia',
	// festivals and holy periods
	'Ramadan', 'Ramadhan', 'Eid', 'Aidilfitri', 'Lebaran', 'Diwali', 'Deepavali', 'Christmas', 'Easter', 'Lent', 'Vesak',
	'Songkran', 'Tet', 'Chuseok', 'Seollal', 'Obon', 'Qingming', 'Thaipusam', 'Nyepi', 'Lunar New Year',
	// currencies that are also ordinary English words in lower case
	'Won', 'Yen', 'Dong',
];

/** Common nouns tied to one faith or cuisine, matched in any case. */
const COMMON = [
	'mosque', 'church', 'temple', 'shrine', 'pagoda', 'halal', 'haram', 'kosher', 'imam', 'monk', 'priest', 'pastor',
	'sushi', 'kimchi', 'rendang', 'adobo', 'pho', 'dim sum', 'satay', 'soju', 'nasi', 'lechon',
	'ringgit', 'rupiah', 'baht', 'peso', 'yuan', 'renminbi',
];

const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
const PROPER_PATTERN = new RegExp(`\\b(?:${PROPER.map(escape).join('|')})\\b`);
const COMMON_PATTERN = new RegExp(`\\b(?:${COMMON.map(escape).join('|')})\\b`, 'i');

/** The first culture-specific word in `text`, or undefined when the text is culture-agnostic. */
export function findCultureWord(text: string): string | undefined {
	// Slots are placeholders, not words: `{{DISH}}` is fine.
	const plain = text.replace(/\{\{[A-Z0-9_]+\}\}/g, ' ');
	return (PROPER_PATTERN.exec(plain) ?? COMMON_PATTERN.exec(plain))?.[0];
}
