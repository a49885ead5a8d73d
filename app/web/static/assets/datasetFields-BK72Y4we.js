import{c as e,l as t}from"./errors-CCbwmWed.js";e(`
  fragment LiveDatasetFields on Dataset {
    dataset_id name project_id schema_id constraint_set_id record_count types params status progress
    records_generated error attempt created_at started_at finished_at
    files { format file_index records size_bytes sha256 }
    viewer_can { start cancel delete }
  }
`);var n=[`queued`,`running`];function r(e){return n.includes(e.status)}var i=Object.values(t).map(e=>({value:e,label:e.toUpperCase()}));function a(e){return i.find(t=>t.value===e)?.label??e.toUpperCase()}var o=[{value:`en_US`,label:`English (US) · en_US`},{value:`en_GB`,label:`English (UK) · en_GB`},{value:`de_DE`,label:`German · de_DE`},{value:`fr_FR`,label:`French · fr_FR`},{value:`es_ES`,label:`Spanish · es_ES`},{value:`it_IT`,label:`Italian · it_IT`},{value:`nl_NL`,label:`Dutch · nl_NL`},{value:`pl_PL`,label:`Polish · pl_PL`},{value:`pt_BR`,label:`Portuguese (Brazil) · pt_BR`},{value:`sv_SE`,label:`Swedish · sv_SE`},{value:`ja_JP`,label:`Japanese · ja_JP`},{value:`zh_CN`,label:`Chinese (Simplified) · zh_CN`}];export{r as i,o as n,a as r,i as t};