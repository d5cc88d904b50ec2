/**
 * TikTok Shop names an address's regions (`district_info[]`, level by level) but gives no
 * codes. Where a country's subdivision name implies its ISO 3166-2 code, the recipient's
 * `state` is that code without the country prefix; elsewhere the name as TikTok wrote it.
 */

/** ISO 3166-2:US (the states, DC and the territories TikTok ships to): the name implies the code. */
const US: Record<string, string> = {
  alabama: 'AL',
  alaska: 'AK',
  arizona: 'AZ',
  arkansas: 'AR',
  california: 'CA',
  colorado: 'CO',
  connecticut: 'CT',
  delaware: 'DE',
  'district of columbia': 'DC',
  florida: 'FL',
  georgia: 'GA',
  hawaii: 'HI',
  idaho: 'ID',
  illinois: 'IL',
  indiana: 'IN',
  iowa: 'IA',
  kansas: 'KS',
  kentucky: 'KY',
  louisiana: 'LA',
  maine: 'ME',
  maryland: 'MD',
  massachusetts: 'MA',
  michigan: 'MI',
  minnesota: 'MN',
  mississippi: 'MS',
  missouri: 'MO',
  montana: 'MT',
  nebraska: 'NE',
  nevada: 'NV',
  'new hampshire': 'NH',
  'new jersey': 'NJ',
  'new mexico': 'NM',
  'new york': 'NY',
  'north carolina': 'NC',
  'north dakota': 'ND',
  ohio: 'OH',
  oklahoma: 'OK',
  oregon: 'OR',
  pennsylvania: 'PA',
  'rhode island': 'RI',
  'south carolina': 'SC',
  'south dakota': 'SD',
  tennessee: 'TN',
  texas: 'TX',
  utah: 'UT',
  vermont: 'VT',
  virginia: 'VA',
  washington: 'WA',
  'west virginia': 'WV',
  wisconsin: 'WI',
  wyoming: 'WY',
  'puerto rico': 'PR',
  guam: 'GU',
  'american samoa': 'AS',
  'northern mariana islands': 'MP',
  'u.s. virgin islands': 'VI',
};

/** ISO 3166-2:IT provinces and metropolitan cities (the sigla on an Italian address), by their Italian name. */
const IT: Record<string, string> = {
  agrigento: 'AG',
  alessandria: 'AL',
  ancona: 'AN',
  aosta: 'AO',
  arezzo: 'AR',
  'ascoli piceno': 'AP',
  asti: 'AT',
  avellino: 'AV',
  bari: 'BA',
  'barletta-andria-trani': 'BT',
  belluno: 'BL',
  benevento: 'BN',
  bergamo: 'BG',
  biella: 'BI',
  bologna: 'BO',
  bolzano: 'BZ',
  brescia: 'BS',
  brindisi: 'BR',
  cagliari: 'CA',
  caltanissetta: 'CL',
  campobasso: 'CB',
  caserta: 'CE',
  catania: 'CT',
  catanzaro: 'CZ',
  chieti: 'CH',
  como: 'CO',
  cosenza: 'CS',
  cremona: 'CR',
  crotone: 'KR',
  cuneo: 'CN',
  enna: 'EN',
  fermo: 'FM',
  ferrara: 'FE',
  firenze: 'FI',
  foggia: 'FG',
  'forlì-cesena': 'FC',
  frosinone: 'FR',
  genova: 'GE',
  gorizia: 'GO',
  grosseto: 'GR',
  imperia: 'IM',
  isernia: 'IS',
  "l'aquila": 'AQ',
  'la spezia': 'SP',
  latina: 'LT',
  lecce: 'LE',
  lecco: 'LC',
  livorno: 'LI',
  lodi: 'LO',
  lucca: 'LU',
  macerata: 'MC',
  mantova: 'MN',
  'massa-carrara': 'MS',
  matera: 'MT',
  messina: 'ME',
  milano: 'MI',
  modena: 'MO',
  'monza e brianza': 'MB',
  napoli: 'NA',
  novara: 'NO',
  nuoro: 'NU',
  oristano: 'OR',
  padova: 'PD',
  palermo: 'PA',
  parma: 'PR',
  pavia: 'PV',
  perugia: 'PG',
  'pesaro e urbino': 'PU',
  pescara: 'PE',
  piacenza: 'PC',
  pisa: 'PI',
  pistoia: 'PT',
  pordenone: 'PN',
  potenza: 'PZ',
  prato: 'PO',
  ragusa: 'RG',
  ravenna: 'RA',
  'reggio calabria': 'RC',
  'reggio emilia': 'RE',
  rieti: 'RI',
  rimini: 'RN',
  roma: 'RM',
  rovigo: 'RO',
  salerno: 'SA',
  sassari: 'SS',
  savona: 'SV',
  siena: 'SI',
  siracusa: 'SR',
  sondrio: 'SO',
  'sud sardegna': 'SU',
  taranto: 'TA',
  teramo: 'TE',
  terni: 'TR',
  torino: 'TO',
  trapani: 'TP',
  trento: 'TN',
  treviso: 'TV',
  trieste: 'TS',
  udine: 'UD',
  varese: 'VA',
  venezia: 'VE',
  'verbano-cusio-ossola': 'VB',
  vercelli: 'VC',
  verona: 'VR',
  'vibo valentia': 'VV',
  vicenza: 'VI',
  viterbo: 'VT',
  // The English names TikTok's district list may use for the largest ones.
  milan: 'MI',
  rome: 'RM',
  naples: 'NA',
  turin: 'TO',
  florence: 'FI',
  venice: 'VE',
  genoa: 'GE',
  padua: 'PD',
  mantua: 'MN',
  syracuse: 'SR',
};

const BY_COUNTRY: Record<string, Record<string, string>> = { US, IT };

/**
 * Which level holds the subdivision a carrier wants: Italy's province (below its region), else the first level under
 * the country.
 */
const LEVEL_NAMES: Record<string, RegExp> = { IT: /province|provincia/i };

interface District {
  address_level?: string | null | undefined;
  address_level_name?: string | null | undefined;
  address_name?: string | null | undefined;
}

/** The recipient's `state` from TikTok's district levels (L1 and below), or undefined when none is given. */
export function stateFromDistricts(
  districts: readonly District[] | null | undefined,
  country: string,
): string | undefined {
  const named = (d: District | undefined) => d?.address_name?.trim() || undefined;
  const list = districts ?? [];
  const wanted = LEVEL_NAMES[country];
  const pick =
    (wanted ? list.find((d) => wanted.test(d.address_level_name ?? '')) : undefined) ??
    list.find((d) => d.address_level === 'L1');
  const name = named(pick);
  if (!name) return undefined;
  const iso = /^([A-Za-z]{2})-([A-Za-z0-9]{1,3})$/.exec(name);
  if (iso && iso[1]!.toUpperCase() === country) return iso[2]!.toUpperCase();
  return BY_COUNTRY[country]?.[name.toLowerCase()] ?? name;
}
