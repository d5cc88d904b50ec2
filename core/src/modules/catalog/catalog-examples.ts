/**
 * The catalogue routes' examples for the OpenAPI description, taken from a real run of the
 * service; the OpenAPI examples test checks them against the routes' schemas.
 */

/** Business cards in the product list (lang=en). */
export const EXAMPLE_PRODUCT_SUMMARY = {
  id: 'business-cards',
  slugs: {
    nl: 'visitekaartjes',
    en: 'business-cards',
    de: 'visitenkarten',
    fr: 'cartes-de-visite',
  },
  name: 'Business cards',
  category: 'business-cards',
  quantity: {
    pricedBy: 'copies',
    runs: [100, 250, 500, 1000, 2500, 5000],
  },
  options: [
    {
      key: 'paper',
      name: 'Paper',
      default: 'mc350',
      values: [
        {
          value: 'mc350',
          label: '350 g matt coated',
        },
        {
          value: 'mc400',
          label: '400 g matt coated',
        },
        {
          value: 'uncoated300',
          label: '300 g uncoated',
        },
        {
          value: 'recycled300',
          label: '300 g recycled',
        },
      ],
    },
    {
      key: 'sides',
      name: 'Printing',
      default: '4/4',
      values: [
        {
          value: '4/0',
          label: 'Single-sided colour',
        },
        {
          value: '4/1',
          label: 'Colour front, black back',
        },
        {
          value: '4/4',
          label: 'Double-sided colour',
        },
      ],
    },
    {
      key: 'finish',
      name: 'Finish',
      default: 'none',
      values: [
        {
          value: 'none',
          label: 'None',
        },
        {
          value: 'matt-laminate',
          label: 'Matt laminate',
        },
        {
          value: 'gloss-laminate',
          label: 'Gloss laminate',
        },
        {
          value: 'soft-touch',
          label: 'Soft-touch laminate',
        },
        {
          value: 'spot-uv',
          label: 'Spot UV varnish',
        },
      ],
    },
    {
      key: 'corners',
      name: 'Corners',
      default: 'square',
      values: [
        {
          value: 'square',
          label: 'Square',
        },
        {
          value: 'rounded',
          label: 'Rounded',
        },
      ],
    },
  ],
};

/** The business cards product page (lang=en), as a test key sees it (with sampleFiles). */
export const EXAMPLE_PRODUCT_DETAIL = {
  ...EXAMPLE_PRODUCT_SUMMARY,
  quantity: {
    ...EXAMPLE_PRODUCT_SUMMARY.quantity,
    runRestrictions: [
      {
        when: {
          finish: ['spot-uv'],
        },
        runs: [250, 500, 1000, 2500],
      },
      {
        when: {
          corners: ['rounded'],
        },
        runs: [250, 500, 1000, 2500, 5000],
      },
    ],
    rule: 'quantity is the number of pieces and must be a run that can be made for the configuration; options.copies must not be sent (or must equal quantity)',
  },
  description: 'Business cards 85 x 55 mm on sturdy board.',
  startingConfiguration: {
    paper: 'mc350',
    sides: '4/4',
    finish: 'none',
    corners: 'square',
  },
  automaticOptions: [
    {
      key: 'printProcess',
      name: 'Print process',
    },
    {
      key: 'sheetFormat',
      name: 'Press sheet',
    },
    {
      key: 'bundling',
      name: 'Bundling',
    },
    {
      key: 'packaging',
      name: 'Packaging',
    },
  ],
  restrictions: [
    {
      kind: 'not_offered',
      when: {
        paper: ['uncoated300', 'recycled300'],
      },
      forbid: {
        finish: ['gloss-laminate', 'soft-touch', 'spot-uv'],
      },
      reason: 'Uncoated board takes no gloss, soft-touch or spot UV finish.',
    },
    {
      kind: 'not_offered',
      when: {
        finish: ['spot-uv'],
      },
      forbid: {
        paper: ['mc350'],
      },
      reason: 'Spot UV is offered on 400 g only.',
    },
    {
      kind: 'unpriceable',
      when: {
        paper: ['recycled300'],
        corners: ['rounded'],
      },
      reason: 'The print partner cannot price rounded corners on recycled board.',
    },
  ],
  availabilityNotes: [
    'Uncoated board takes no gloss, soft-touch or spot UV finish.',
    'Spot UV is offered on 400 g only.',
    'The print partner cannot price rounded corners on recycled board.',
  ],
  weightGramsPerPiece: 1.6,
  fileRequirements: {
    acceptedTypes: ['pdf', 'png', 'jpg'],
    convertibleTypes: ['eps', 'ai', 'ps', 'svg'],
    trimSizeMm: {
      width: 85,
      height: 55,
    },
    bleedMm: 2,
    minResolutionDpi: 300,
    colourSpace: 'CMYK',
    notes: 'Supply your file with bleed and outlined fonts.',
  },
  sampleFiles: [
    {
      format: 'standard',
      trimSizeMm: {
        width: 85,
        height: 55,
      },
      bleedMm: 2,
      pageSizeMm: {
        width: 89,
        height: 59,
      },
      url: 'https://print-api.example/api/reseller/v1/sample-files/business-cards/standard.pdf',
    },
  ],
};
